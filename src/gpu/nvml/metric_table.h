// How each per-GPU value of an NVML sample is exposed: the metric name
// (dcgm-exporter's DCGM_FI_* name where DCGM has the field, llmon_gpu_*
// otherwise), type, HELP, the factor from the sample's SI unit to the
// exposed unit (DCGM names keep DCGM's units: MHz, MiB, %, mJ), and the NVML
// source, which docs/metrics.md lists. One table, read by the collector and
// by the docs test; adding a value is one line here plus its read in
// nvml_sampler.cpp.
#pragma once

#include <span>
#include <string_view>

#include "gpu/nvml/sample.h"
#include "model/metric.h"

namespace llmon::gpu::nvml {

struct MetricDef {
  V value;
  std::string_view name;
  model::MetricType type;
  double scale;  // exposed = sample value * scale
  std::string_view help;
  std::string_view source;  // NVML call or field id
};

std::span<const MetricDef> metric_table();

// Clock-event (throttle) reason bits and their `reason` label values.
struct ReasonDef {
  unsigned long long bit;
  std::string_view name;
};
std::span<const ReasonDef> clock_event_reasons();

}  // namespace llmon::gpu::nvml
