// intervals.h.
#include "trace/intervals.h"

#include <algorithm>

namespace llmon::trace {

std::vector<Interval> merge_intervals(std::vector<Interval> iv) {
  std::sort(iv.begin(), iv.end());
  std::vector<Interval> out;
  for (const Interval& x : iv) {
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  return out;
}

int64_t total_length(const std::vector<Interval>& merged) {
  int64_t t = 0;
  for (const Interval& x : merged) t += x.second - x.first;
  return t;
}

int64_t intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t t = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) t += hi - lo;
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return t;
}

}  // namespace llmon::trace
