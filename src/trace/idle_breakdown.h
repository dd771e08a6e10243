// Idle time by cause, per stream (HTA's get_idle_time_breakdown,
// hta/analyzers/breakdown_analysis.py). On each stream, kernels in start
// order; the gap before a kernel is its start minus the previous kernel's end
// (negative when they overlap; summed as it is, like HTA). A gap is
//   host wait   if the kernel's CPU launch (same correlation) began after the
//               previous kernel ended: the CPU did not enqueue work in time;
//   kernel wait else if the gap is below the threshold (HTA's
//               consecutive_kernel_delay, 30): launch overhead between
//               back-to-back kernels;
//   other       otherwise (synchronisation, waiting on another stream, ...).
// Kernels without a launch are never host wait. Per cause: the summed gaps,
// their number and their describe() (HTA's show_idle_interval_stats). Pure.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/stats.h"
#include "trace/trace_data.h"

namespace llmon::trace {

struct StreamIdle {
  int64_t stream = -1;  // stream_number
  uint64_t kernels = 0;
  int64_t host_wait = 0, kernel_wait = 0, other = 0;  // summed gaps, trace units
  uint64_t host_wait_gaps = 0, kernel_wait_gaps = 0, other_gaps = 0;
  // The gaps of each cause described (HTA's show_idle_interval_stats), trace units.
  Summary host_wait_stats, kernel_wait_stats, other_stats;
  int64_t total() const { return host_wait + kernel_wait + other; }
};

// launch_ts: correlation -> start of its CPU runtime call (TraceData::launch_ts);
// kernel_wait_below in trace units. Streams sorted by number.
std::vector<StreamIdle> idle_time_breakdown(const std::vector<Span>& kernels,
                                            const std::unordered_map<int64_t, int64_t>& launch_ts,
                                            int64_t kernel_wait_below);

}  // namespace llmon::trace
