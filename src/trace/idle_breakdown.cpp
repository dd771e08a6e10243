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
    std::vector<double> gaps[3];  // host wait, kernel wait, other
    for (size_t i = 1; i < ks.size(); ++i) {
      int64_t prev_end = ks[i - 1]->end();
      int64_t gap = ks[i]->ts - prev_end;
      auto it = ks[i]->correlation == kAbsent ? launch_ts.end() : launch_ts.find(ks[i]->correlation);
      int cause = it != launch_ts.end() && it->second > prev_end ? 0 : gap < kernel_wait_below ? 1 : 2;
      (cause == 0 ? s.host_wait : cause == 1 ? s.kernel_wait : s.other) += gap;
      gaps[cause].push_back(static_cast<double>(gap));
    }
    s.host_wait_gaps = gaps[0].size();
    s.kernel_wait_gaps = gaps[1].size();
    s.other_gaps = gaps[2].size();
    s.host_wait_stats = describe(std::move(gaps[0]));
    s.kernel_wait_stats = describe(std::move(gaps[1]));
    s.other_stats = describe(std::move(gaps[2]));
    out.push_back(s);
  }
  return out;
}

}  // namespace llmon::trace
