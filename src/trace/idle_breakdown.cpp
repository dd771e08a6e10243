// idle_breakdown.h.
#include "trace/idle_breakdown.h"

#include <algorithm>
#include <map>

namespace llmon::trace {

std::vector<StreamIdle> idle_time_breakdown(const std::vector<Span>& kernels,
                                            const std::unordered_map<int64_t, int64_t>& launch_ts,
                                            int64_t kernel_wait_below) {
  std::map<int64_t, std::vector<const Span*>> by_stream;
  for (const Span& k : kernels) by_stream[stream_number(k.stream)].push_back(&k);
  std::vector<StreamIdle> out;
  for (auto& [stream, ks] : by_stream) {
    std::stable_sort(ks.begin(), ks.end(), [](const Span* a, const Span* b) { return a->ts < b->ts; });
    StreamIdle s;
    s.stream = stream;
    s.kernels = ks.size();
    for (size_t i = 1; i < ks.size(); ++i) {
      int64_t prev_end = ks[i - 1]->end();
      int64_t gap = ks[i]->ts - prev_end;
      auto it = ks[i]->correlation == kAbsent ? launch_ts.end() : launch_ts.find(ks[i]->correlation);
      if (it != launch_ts.end() && it->second > prev_end) {
        s.host_wait += gap;
        ++s.host_wait_gaps;
      } else if (gap < kernel_wait_below) {
        s.kernel_wait += gap;
        ++s.kernel_wait_gaps;
      } else {
        s.other += gap;
        ++s.other_gaps;
      }
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace llmon::trace
