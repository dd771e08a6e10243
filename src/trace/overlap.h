// Communication/computation overlap of one rank (HTA's get_comm_comp_overlap,
// hta/analyzers/communication_analysis.py): of the time some COMMUNICATION
// kernel runs (the union of their intervals, all streams), the share during
// which some COMPUTATION kernel runs too. High is good: the collectives are
// hidden behind compute. Pure.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/kernel_type.h"
#include "trace/trace_data.h"

namespace llmon::trace {

struct CommCompOverlap {
  int64_t comm = 0;        // union of the COMMUNICATION kernels' intervals
  int64_t overlapped = 0;  // the part of it during which a COMPUTATION kernel runs
  double pct = 0;          // 100 * overlapped / comm; 0 without communication
};

// type_of[name] is the kernel type of each kernel name the kernels use.
CommCompOverlap comm_comp_overlap(const std::vector<Span>& kernels, const std::vector<KernelType>& type_of);

}  // namespace llmon::trace
