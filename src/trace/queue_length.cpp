// queue_length.h.
#include "trace/queue_length.h"

#include <algorithm>

namespace llmon::trace {

std::map<int64_t, std::vector<QueuePoint>> queue_length_series(const std::vector<Span>& kernels,
                                                               const LaunchIndex& launches) {
  struct Step {
    int64_t ts;
    int delta;
  };
  std::map<int64_t, std::vector<Step>> steps;
  for (const Span& k : kernels) {
    if (k.correlation == kAbsent) continue;
    const Span* l = launches.find(k.correlation);
    if (!l) continue;
    auto& v = steps[stream_number(k.stream)];
    v.push_back(Step{l->ts, +1});
    v.push_back(Step{k.ts, -1});
  }
  std::map<int64_t, std::vector<QueuePoint>> out;
  for (auto& [stream, v] : steps) {
    std::stable_sort(v.begin(), v.end(),
                     [](const Step& a, const Step& b) { return a.ts != b.ts ? a.ts < b.ts : a.delta > b.delta; });
    auto& series = out[stream];
    series.reserve(v.size());
    int64_t len = 0;
    for (const Step& s : v) {
      len += s.delta;
      series.push_back(QueuePoint{s.ts, len});
    }
  }
  return out;
}

int64_t time_at_or_above(const std::vector<QueuePoint>& series, int64_t n) {
  int64_t t = 0;
  for (size_t i = 0; i + 1 < series.size(); ++i)
    if (series[i].length >= n) t += series[i + 1].ts - series[i].ts;
  return t;
}

std::vector<StreamQueue> queue_length_summary(const std::map<int64_t, std::vector<QueuePoint>>& series) {
  std::vector<StreamQueue> out;
  for (const auto& [stream, pts] : series) {
    if (pts.empty()) continue;
    StreamQueue q;
    q.stream = stream;
    // Lengths are small integers: sorted by counting, not by comparison. (A
    // kernel that starts before its launch call, clock skew, can go below 0.)
    int64_t lo = 0;
    q.max = INT64_MIN;
    for (const QueuePoint& p : pts) {
      q.max = std::max(q.max, p.length);
      lo = std::min(lo, p.length);
    }
    std::vector<uint64_t> hist(static_cast<size_t>(q.max - lo + 1));
    for (const QueuePoint& p : pts) ++hist[static_cast<size_t>(p.length - lo)];
    std::vector<double> v;
    v.reserve(pts.size());
    for (size_t i = 0; i < hist.size(); ++i)
      v.insert(v.end(), hist[i], static_cast<double>(static_cast<int64_t>(i) + lo));
    q.length = describe_sorted(v);
    for (size_t i = 0; i + 1 < pts.size(); ++i)
      if (pts[i].length == q.max) q.time_at_max += pts[i + 1].ts - pts[i].ts;
    out.push_back(q);
  }
  return out;
}

}  // namespace llmon::trace
