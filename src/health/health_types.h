// The values GPU health is told and tells: which GPU, which source, and the
// per-GPU verdict (state, recommended action, evidence). Plain data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "health/xid_catalog.h"

namespace llmon::health {

enum class HealthState : uint8_t { kHealthy, kDegraded, kUnhealthy };
// "healthy", "degraded", "unhealthy".
std::string_view state_name(HealthState s);
constexpr HealthState kAllStates[] = {HealthState::kHealthy, HealthState::kDegraded, HealthState::kUnhealthy};

enum class XidSource : uint8_t { kNvml, kKernel };

// A GPU as the NVML sampler names it. UUID is the key (indices can change
// across reboots); pci_bus_id maps kernel lines to it.
struct GpuRef {
  std::string gpu;         // "0"
  std::string uuid;        // "GPU-8f6d…"
  std::string pci_bus_id;  // any form normalize_bus_id accepts
};

// One item of a GPU's evidence list. `kind` is one of: xid, xid_escalation,
// xid_repeat, recovery_action, ecc_uncorrectable, row_remap_pending,
// row_remap_failed, pcie_link, aer, aer_line, nvml_lost, nvml_hung
// (docs/gpu-health.md).
struct Evidence {
  int64_t time_ms = 0;  // first seen (a condition: since when it holds)
  std::string kind;
  HealthState state = HealthState::kHealthy;
  Action action = Action::kNone;
  std::string detail;  // one line for people
  // kind == xid / xid_escalation / xid_repeat:
  uint32_t xid = 0;
  uint64_t count = 0;       // errors in this occurrence (repeats within the merge window)
  std::string sources;      // "nvml", "kernel" or "nvml,kernel"
  std::string nvml_line;    // the NVML event as text
  std::string kernel_line;  // the kernel log line
};

struct GpuHealth {
  GpuRef gpu;
  HealthState state = HealthState::kHealthy;
  Action action = Action::kNone;
  std::vector<Evidence> evidence;                         // strongest first
  int64_t set_healthy_ms = 0;                             // last operator override (0: never)
  std::vector<std::pair<uint32_t, uint64_t>> xid_counts;  // errors per Xid since the agent started
};

struct HealthSnapshot {
  int64_t time_ms = 0;
  std::string boot_id;
  std::vector<GpuHealth> gpus;  // ordered by gpu index, then UUID
};

}  // namespace llmon::health
