// The gpu collector's second name set: utkuozdemir/nvidia_gpu_exporter's
// nvidia_smi_* families (gpu/nvml/smi_table.h), chosen with
// --collector.gpu.names (a comma list of "dcgm" and "nvidia_smi"; default
// "dcgm"), so rules and Grafana dashboards written for that exporter work
// against llmon. Every per-GPU series carries `uuid` only; identity is on
// nvidia_smi_gpu_info; the exporter's own health families
// (nvidia_smi_last_collect_success, ..._duration_seconds, failed_scrapes_total)
// describe llmon's NVML cycle. One instance per collector; not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gpu/nvml/sample.h"
#include "model/snapshot_builder.h"

namespace llmon::collector {

struct GpuNames {
  bool dcgm = true;
  bool nvidia_smi = false;
};

// Parses "dcgm", "nvidia_smi", "dcgm,nvidia_smi" (order and spaces free);
// an unknown or empty list is an error naming the value.
Expected<GpuNames> parse_gpu_names(std::string_view list);

// A process with a context on a GPU, for nvidia_smi_compute_app_*.
struct SmiApp {
  std::string_view gpu_uuid;  // NVML's form ("GPU-..."); normalised by the writer
  std::string_view pid;
  std::string_view process_name;
  char type;            // ProcessSample::type ('G' graphics only: not a compute app)
  double memory_bytes;  // NaN: unknown
};

class SmiWriter {
 public:
  // One cycle. `sample` null: the cycle timed out (collection failed).
  // `apps` empty with `processes` false: per-process families are off.
  void write(model::SnapshotBuilder& out, const gpu::nvml::Sample* sample, double seconds, int64_t now_ms,
             bool processes, std::span<const SmiApp> apps);

 private:
  void write_devices(model::SnapshotBuilder& out, const gpu::nvml::Sample& s);
  void write_apps(model::SnapshotBuilder& out, const gpu::nvml::Sample& s, std::span<const SmiApp> apps);

  uint64_t failed_ = 0;
  double last_success_s_ = 0;
  std::vector<std::string> uuids_, nvml_uuids_;  // per device: the exporter's form, and NVML's it came from
  // Throttle-reason families for reason_driver_: names, HELP, bit (index 0: the bitmask).
  std::string reason_driver_;
  std::vector<std::string> reason_names_, reason_helps_;
  std::vector<unsigned long long> reason_bits_;
  std::vector<size_t> app_device_;  // per app of the cycle: its device index
  std::vector<size_t> per_gpu_;     // compute apps per device, this cycle
};

}  // namespace llmon::collector
