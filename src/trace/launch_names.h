// The CPU runtime calls that enqueue work on a GPU stream: HTA's list
// (hta/common/trace_symbol_table.py, get_runtime_launch_events_mask) of CUDA,
// HIP and MTIA launches, memcpys and memsets. Queue lengths and launch
// statistics pair these with the kernel of the same correlation
// (index_launches). Pure.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llmon::trace {

inline bool is_launch_call(std::string_view name) {
  for (std::string_view n :
       {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
        "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
        "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream"})
    if (name == n) return true;
  return false;
}

struct Span;
// correlation -> the first launch call with it (TraceData::launches).
using LaunchIndex = std::unordered_map<int64_t, const Span*>;
LaunchIndex index_launches(const std::vector<Span>& launches);

}  // namespace llmon::trace
