// What the tracker keeps per GPU: the Xid occurrences and boot history (both
// persisted, state_file.h), the operator's override, and the live conditions
// re-observed every cycle (not persisted). The kernel's AER lines are
// persisted with their boot: they hold until the next boot. Plain data shared by the tracker
// (gpu_health.h), the evaluation (health_eval.h) and the state file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "health/health_types.h"

namespace llmon::health {

// One Xid error burst on one GPU in one boot: sightings from NVML and the
// kernel log within the merge window are the same errors, so the
// occurrence's error count is the larger of the two sources' counts.
struct Occurrence {
  uint32_t xid = 0;
  std::string boot_id;
  int64_t first_ms = 0;
  int64_t last_ms = 0;
  uint64_t nvml_count = 0;
  uint64_t kernel_count = 0;
  std::string nvml_line;  // the first sighting's evidence per source
  std::string kernel_line;
  std::string severity;  // NVLink5 lines
  uint64_t count() const { return nvml_count > kernel_count ? nvml_count : kernel_count; }
};

// A boot in which a given Xid was seen (GPUd-style escalation).
struct BootSighting {
  std::string boot_id;
  int64_t last_ms = 0;
};

// A live condition (recovery action, ECC, remap, PCIe link, AER, NVML
// status). `key` identifies its value: a change restarts `since_ms`, which is
// what an operator override is compared with.
struct Condition {
  bool active = false;
  int64_t since_ms = 0;
  std::string key;
  HealthState state = HealthState::kHealthy;
  Action action = Action::kNone;
  std::string detail;
};

struct GpuRecord {
  GpuRef ref;
  // Persisted:
  std::vector<Occurrence> occurrences;                  // oldest first, bounded
  std::map<uint32_t, std::vector<BootSighting>> boots;  // per Xid, oldest first, bounded
  int64_t set_healthy_ms = 0;
  std::vector<Evidence> events;  // kernel AER lines of the boot events_boot_id, bounded
  std::string events_boot_id;
  // Live:
  std::map<std::string, Condition> conditions;  // by evidence kind
  std::map<uint32_t, uint64_t> xid_counts;      // since the agent started
  bool remap_known = false;                     // NVML answered the row-remap flags
  int pcie_low_polls = 0;                       // consecutive polls below the maximum
};

}  // namespace llmon::health
