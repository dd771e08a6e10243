// The names utkuozdemir/nvidia_gpu_exporter gives the values llmon samples
// (opt-in with --collector.gpu.names=...,nvidia_smi): `nvidia_smi_` plus the
// nvidia-smi query field with non-alphanumerics turned into `_` and the
// unit suffix the exporter derives from the CSV header ([%] -> _ratio,
// [MiB] -> _bytes, [MHz] -> _clock_hz, [W] -> _watts, [us] -> _seconds), in
// SI units (a Sample's units, so every scale is 1). HELP is the field name
// and unit, as that exporter writes it. Every series is labelled by `uuid`
// alone (lower case, "GPU-" stripped); identity is on nvidia_smi_gpu_info.
// Values nvidia-smi has but llmon does not read (retired pages, vbios,
// serial, ...) are listed in docs/metrics.md.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "gpu/nvml/sample.h"
#include "model/metric.h"

namespace llmon::gpu::nvml {

struct SmiDef {
  V value;
  std::string_view name;
  model::MetricType type;
  std::string_view help;
};

std::span<const SmiDef> smi_table();

// The exporter's `uuid` label: "GPU-8F6D..." -> "8f6d...".
std::string smi_uuid(std::string_view nvml_uuid);

// The clock-reason families' stem for a driver: nvidia-smi renamed
// clocks_throttle_reasons.* to clocks_event_reasons.* in driver 535.
std::string_view smi_reason_stem(std::string_view driver_version);

}  // namespace llmon::gpu::nvml
