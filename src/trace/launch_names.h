// The CPU runtime calls that enqueue work on a GPU stream: HTA's list
// (hta/common/trace_symbol_table.py, get_runtime_launch_events_mask) of CUDA,
// HIP and MTIA launches, memcpys and memsets. Queue lengths and launch
// statistics pair these with the kernel of the same correlation
// (index_launches). Pure.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
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
// correlation -> the first launch call with it (TraceData::launches): a
// vector sorted by correlation (16 bytes a launch; a hash map took about 56).
class LaunchIndex {
 public:
  explicit LaunchIndex(const std::vector<Span>& launches);
  const Span* find(int64_t correlation) const;  // nullptr when none

 private:
  std::vector<std::pair<int64_t, const Span*>> by_corr_;
};
inline LaunchIndex index_launches(const std::vector<Span>& launches) {
  return LaunchIndex(launches);
}

}  // namespace llmon::trace
