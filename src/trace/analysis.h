// The analyses of one rank's TraceData (docs/trace.md#analyses), pure
// functions: HTA's temporal breakdown (idle / compute / non-compute of the
// GPU, kernels merged across streams), the kernel breakdown by HTA type, by
// llmon class and by name, the top kernels and CPU operators (self time) with
// a flag above a share threshold, steps from ProfilerStep#N annotations, and
// the per-analysis files it runs on the same kernels: communication/
// computation overlap (overlap.h), idle time by cause (idle_breakdown.h),
// launch statistics (launch_stats.h), queue lengths (queue_length.h), memory
// bandwidth (memory_bandwidth.h); it also keeps what the cross-rank
// stragglers (stragglers.h) and `trace diff` (trace_diff.h) need.
// Times are in the trace's unit (RankReport::ns_per_unit ns each).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/idle_breakdown.h"
#include "trace/launch_stats.h"
#include "trace/memory_bandwidth.h"
#include "trace/overlap.h"
#include "trace/queue_length.h"
#include "trace/stragglers.h"
#include "trace/trace_data.h"
#include "trace/trace_diff.h"

namespace llmon::trace {

struct AnalyzeOptions {
  double flag_share = 0.30;  // flag a kernel or operator at or above this share
  size_t top_n = 10;         // rows in the top kernels / operators lists
  int64_t kernel_wait_us = 30;           // idle gaps below this are kernel wait (HTA: 30)
  int64_t runtime_cutoff_us = 50;        // launch calls longer than this are runtime outliers (HTA: 50)
  int64_t launch_delay_cutoff_us = 100;  // launch delays above this are outliers (HTA: 100)
};

struct Temporal {
  int64_t kernel_time = 0;  // end of the last kernel - start of the first
  int64_t idle = 0;         // kernel_time - union of all kernel intervals
  int64_t compute = 0;      // union of COMPUTATION kernel intervals
  int64_t non_compute = 0;  // kernel_time - compute - idle
  double idle_pct = 0, compute_pct = 0, non_compute_pct = 0;
};

struct GroupStat {  // one kernel type or class
  std::string name;
  uint64_t count = 0;
  int64_t sum = 0;
  double share = 0;  // of the summed duration of all selected kernels
};

struct NameStat {  // one kernel or operator name
  std::string name;
  std::string group;  // kernel: its HTA type and llmon class ("COMPUTATION/gemm"); operator: empty
  uint64_t count = 0;
  int64_t sum = 0;  // kernels: duration; operators: self time
  int64_t max = 0;
  int64_t min = 0;
  double mean = 0;
  double share = 0;
  bool flagged = false;
};

struct Step {
  int64_t number = -1;  // N of ProfilerStep#N
  int64_t ts = 0;
  int64_t dur = 0;
  int64_t gpu_busy = 0;  // union of the kernel intervals inside [ts, ts + dur)
};

struct RankReport {
  int64_t rank = 0;
  int64_t ns_per_unit = 1000;
  uint64_t kernels_total = 0;  // GPU events with a stream
  uint64_t kernels_used = 0;   // after HTA's step filter
  bool step_filter = false;    // >= 2 ProfilerSteps: kernels launched before the last step only
  Temporal temporal;
  std::vector<GroupStat> by_type;   // HTA types, largest first
  std::vector<GroupStat> by_class;  // llmon classes, largest first
  std::vector<NameStat> top_kernels;
  std::vector<NameStat> top_operators;
  uint64_t kernel_names = 0;
  uint64_t operator_names = 0;
  std::vector<Step> steps;
  CommCompOverlap overlap;
  std::vector<StreamIdle> idle_by_stream;
  LaunchStats launches;
  std::vector<StreamQueue> queues;
  std::vector<MemoryKind> memory;
  std::vector<CollectiveCall> collectives;  // COMMUNICATION kernels, for find_stragglers
  std::vector<NameTotal> kernel_totals;     // every kernel name, for diff_traces
  std::vector<NameTotal> operator_totals;   // every operator name (self time)
};

// What find_stragglers and diff_traces take of a report.
RankCollectives collectives_of(const RankReport& r);
DiffSideRank diff_side_of(const RankReport& r);

// Length of the union of [first, second) intervals (any order).
int64_t union_length(std::vector<std::pair<int64_t, int64_t>> iv);

// HTA's temporal breakdown over kernels; is_compute[name] says COMPUTATION.
Temporal temporal_breakdown(const std::vector<Span>& kernels, const std::vector<bool>& is_compute);

// The kernels HTA analyses: all of them, or with >= 2 ProfilerStep
// annotations those whose launch (by correlation) precedes the last step;
// plus the MTIA memory events without a stream that start inside a step
// (TraceData::device_memory).
std::vector<Span> select_kernels(const TraceData& d, const std::vector<Step>& steps, bool* filtered);

std::vector<Step> find_steps(const TraceData& d);

RankReport analyze(const TraceData& d, const AnalyzeOptions& opts = {});

}  // namespace llmon::trace
