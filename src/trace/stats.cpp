// stats.h.
#include "trace/stats.h"

#include <algorithm>
#include <cmath>

namespace llmon::trace {

double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  double pos = q * static_cast<double>(s.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

Summary describe(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return describe_sorted(v);
}

Summary describe_sorted(const std::vector<double>& v) {
  Summary s;
  if (v.empty()) return s;
  s.count = v.size();
  long double sum = 0;
  for (double x : v) sum += x;
  s.mean = static_cast<double>(sum / static_cast<long double>(v.size()));
  if (v.size() > 1) {
    long double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.std = static_cast<double>(std::sqrt(sq / static_cast<long double>(v.size() - 1)));
  }
  s.min = v.front();
  s.max = v.back();
  s.p25 = quantile_sorted(v, 0.25);
  s.p50 = quantile_sorted(v, 0.50);
  s.p75 = quantile_sorted(v, 0.75);
  return s;
}

}  // namespace llmon::trace
