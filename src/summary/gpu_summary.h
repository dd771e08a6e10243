// GpuSummary: the GPU part of `llmon snapshot` (docs/snapshot.md), read from
// the series the "gpu" (NVIDIA, NVML) and "amdgpu" collectors put into two
// snapshots taken interval_s apart. Pure: no NVML, no sysfs, no I/O, so tests
// feed hand-built snapshots. Values come from the later snapshot; the earlier
// one only serves counter deltas (per-process host CPU %, AMD engine busy %).
// A value no series carries is absent (std::nullopt), never 0: text prints
// "-", JSON null. Not thread-safe to share while being built; the result is a
// plain value.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/metric.h"

namespace llmon::summary {

// One MIG instance of a GPU (DCGM_FI_DEV_FB_* series with GPU_I_PROFILE/GPU_I_ID).
struct MigInstance {
  std::string profile;      // "1g.10gb"
  std::string instance_id;  // GPU_I_ID, "3"
  std::optional<double> mem_used_bytes, mem_total_bytes;
};

struct GpuRow {
  std::string index;  // the "gpu" label: "0"
  std::string name, uuid, pci_bus_id, device;
  std::string backend;           // llmon_gpu_info's backend label ("nvml", "amdgpu"); empty if unknown
  std::vector<MigInstance> mig;  // by instance id
  std::optional<double> util_pct, mem_util_pct;
  std::optional<double> mem_used_bytes, mem_total_bytes, mem_reserved_bytes, mem_used_pct;
  std::optional<double> temp_c, hotspot_temp_c, mem_temp_c;  // hotspot: AMD junction sensor
  std::optional<double> power_w, power_limit_w;
  std::optional<double> sm_clock_mhz, mem_clock_mhz;
  std::optional<double> pstate, fan_pct, pcie_gen, pcie_width;
  std::optional<double> last_xid, ecc_dbe_volatile;
  // Active clock event (throttle) reasons, in the collector's order; only
  // meaningful when throttle_known (some llmon_gpu_clock_event_reason_active
  // series exists for this GPU).
  std::vector<std::string> throttle_reasons;
  bool throttle_known = false;
  bool lost = false;  // llmon_gpu_up == 0
  // GPU health (llmon_gpu_health_state / _action == 1); empty: not tracked.
  std::string health_state, health_action;
};

struct GpuProcess {
  std::string gpu;  // index label of the (parent) GPU
  std::string gpu_uuid, mig_profile, mig_instance_id;
  std::string pid, user, command, container, pod, namespace_;  // empty: unknown / none
  std::optional<double> gpu_mem_bytes, sm_pct, mem_pct, enc_pct, dec_pct;
  std::optional<double> engine_busy_pct;  // AMD: sum over engines of busy time / interval
  std::optional<double> cpu_pct;          // host CPU, from the cpu_seconds_total delta
  std::optional<double> rss_bytes;        // host resident memory
};

// Why a host has (no) GPUs: llmon_gpu_backend_up / llmon_gpu_backend_info.
struct GpuBackendState {
  std::string backend;
  bool up = false;
  std::string reason;                                             // why not up
  std::string driver_version, nvml_version, cuda_driver_version;  // empty: unknown
};

struct GpuSummary {
  std::vector<GpuBackendState> backends;  // by name
  std::vector<GpuRow> gpus;               // by backend, then numeric index
  std::vector<GpuProcess> processes;      // in GPU order, then MIG instance, then pid
};

GpuSummary summarize_gpus(const model::Snapshot& before, const model::Snapshot& after, double interval_s);

// Appends the GPU and GPU PROCESSES tables; appends nothing without GPUs.
void format_gpu_text(const GpuSummary& g, std::string& out);
// Sets j["gpu_backends"], j["gpus"], j["gpu_processes"] (arrays, maybe empty).
void add_gpu_json(const GpuSummary& g, nlohmann::json& j);

}  // namespace llmon::summary
