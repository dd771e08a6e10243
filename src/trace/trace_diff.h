// `llmon trace diff A B` (docs/trace.md#diff): what changed between two
// traces (or two directories of ranks; each side's ranks are summed). Rows
// for the temporal breakdown (kernel time, idle, compute, non-compute; share
// of the side's kernel time), for every kernel name (summed duration; share
// of the side's summed kernel duration) and every CPU operator (self time;
// share of the side's operator self time): before, after, the delta, sorted
// by the absolute delta, largest first. Times in ns so that µs and ns traces
// compare. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmon::trace {

struct NameTotal {  // one kernel or operator name over a rank
  std::string name;
  uint64_t count = 0;
  int64_t sum = 0;  // trace units
};

struct DiffSideRank {  // what the diff needs of one rank (from RankReport)
  int64_t ns_per_unit = 1000;
  int64_t kernel_time = 0, idle = 0, compute = 0, non_compute = 0;
  std::vector<NameTotal> kernels;    // every kernel name
  std::vector<NameTotal> operators;  // every operator name, self time
};

struct DiffRow {
  std::string name;
  uint64_t count_a = 0, count_b = 0;
  int64_t a_ns = 0, b_ns = 0;
  double share_a = 0, share_b = 0;
  int64_t delta_ns() const { return b_ns - a_ns; }
};

struct TraceDiff {
  size_t ranks_a = 0, ranks_b = 0;
  std::vector<DiffRow> temporal;                // kernel_time, idle, compute, non_compute (that order)
  std::vector<DiffRow> kernels;                 // sorted by |delta|, at most top
  std::vector<DiffRow> operators;               // likewise
  size_t kernel_names = 0, operator_names = 0;  // rows before the cut
};

TraceDiff diff_traces(const std::vector<DiffSideRank>& a, const std::vector<DiffSideRank>& b, size_t top);

}  // namespace llmon::trace
