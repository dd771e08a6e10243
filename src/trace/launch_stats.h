// CUDA kernel launch statistics of one rank (HTA's get_cuda_kernel_launch_stats,
// hta/analyzers/cuda_kernel_analysis.py): each GPU kernel paired with its
// CPU launch call (launch_names.h) by correlation gives the CPU duration of
// the call, the GPU duration of the kernel and the launch delay, the GPU
// start minus the end of the CPU call (HTA's documented definition; it is
// negative when the kernel starts before the call returns). Summaries, and
// HTA's three outlier sets: short kernels (CPU duration <= the runtime cutoff
// and GPU duration < CPU duration: the launch costs more than the work),
// runtime outliers (CPU duration > the runtime cutoff, default 50 µs) and
// launch-delay outliers (delay > the delay cutoff, default 100 µs). Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/launch_names.h"
#include "trace/stats.h"
#include "trace/trace_data.h"

namespace llmon::trace {

struct LaunchRow {
  int64_t correlation = kAbsent;
  uint32_t kernel = 0;                          // names index of the kernel
  int64_t cpu_dur = 0, gpu_dur = 0, delay = 0;  // trace units
};

struct LaunchStats {
  uint64_t pairs = 0;
  Summary cpu_dur, gpu_dur, delay;  // trace units
  double cpu_p95 = 0, gpu_p95 = 0, delay_p95 = 0;
  uint64_t short_kernels = 0, runtime_outliers = 0, delay_outliers = 0;
  std::vector<LaunchRow> worst;          // largest launch delays first
  std::vector<std::string> worst_names;  // the kernel name of each (analyze fills it)
};

struct LaunchOptions {
  int64_t runtime_cutoff = 50;        // trace units
  int64_t launch_delay_cutoff = 100;  // trace units
  size_t worst = 5;
};

// One row per kernel whose correlation has a launch call, in kernel order.
std::vector<LaunchRow> launch_rows(const std::vector<Span>& kernels, const LaunchIndex& launches);

LaunchStats launch_stats(const std::vector<LaunchRow>& rows, const LaunchOptions& opts);

}  // namespace llmon::trace
