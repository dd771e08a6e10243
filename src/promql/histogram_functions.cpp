// See histogram_functions.h. Semantics: Prometheus promql/quantile.go —
// bucketQuantile, coalesceBuckets, ensureMonotonic (2.42) and
// ensureMonotonicAndIgnoreSmallDeltas / BucketFraction (3.x).
#include "promql/histogram_functions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace llmon::promql {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Sorts by upper bound. Prometheus does not expect NaN bounds (Go's sort
// would leave them somewhere); here they go first so the order is defined.
void sort_buckets(std::vector<Bucket>& b) {
  std::sort(b.begin(), b.end(), [](const Bucket& x, const Bucket& y) {
    if (std::isnan(x.upper_bound)) return !std::isnan(y.upper_bound);
    if (std::isnan(y.upper_bound)) return false;
    return x.upper_bound < y.upper_bound;
  });
}

// coalesceBuckets: merges buckets with equal bounds (input sorted).
void coalesce(std::vector<Bucket>& b) {
  size_t out = 0;
  for (size_t i = 1; i < b.size(); i++) {
    if (b[i].upper_bound == b[out].upper_bound) {
      b[out].count += b[i].count;
    } else {
      b[++out] = b[i];
    }
  }
  b.resize(out + 1);
}

// 2.42's ensureMonotonic: the running maximum envelope. NaN counts are left
// alone and do not change the maximum.
bool ensure_monotonic(std::vector<Bucket>& b) {
  bool forced = false;
  double max = -kInf;
  for (auto& x : b) {
    if (x.count > max) {
      max = x.count;
    } else if (x.count < max) {
      x.count = max;
      forced = true;
    }
  }
  return forced;
}

// Prometheus's util/almost.Equal.
bool almost_equal(double a, double b, double epsilon) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (a == b) return true;
  const double min_normal = std::numeric_limits<double>::min();  // 0x0010000000000000
  const double abs_sum = std::fabs(a) + std::fabs(b);
  const double diff = std::fabs(a - b);
  if (a == 0 || b == 0 || abs_sum < min_normal) return diff < epsilon * min_normal;
  return diff / std::min(abs_sum, std::numeric_limits<double>::max()) < epsilon;
}

// 3.x's ensureMonotonicAndIgnoreSmallDeltas: `prev` is the last accepted
// count; a count within the tolerance of it, or below it, is set to it.
void ensure_monotonic_ignore_small_deltas(std::vector<Bucket>& b, double tolerance, bool& forced, bool& fixed) {
  double prev = b[0].count;
  for (size_t i = 1; i < b.size(); i++) {
    const double cur = b[i].count;
    if (cur == prev) continue;
    if (almost_equal(prev, cur, tolerance)) {
      b[i].count = prev;
      fixed = true;
      continue;
    }
    if (cur < prev) {
      b[i].count = prev;
      forced = true;
      continue;
    }
    prev = cur;
  }
}

// Go's sort.Search: the smallest i in [0, n) with pred(i), by bisection
// (the same probes as Go, so the same answer even for a non-monotonic pred).
template <typename Pred>
size_t go_search(size_t n, Pred pred) {
  size_t i = 0, j = n;
  while (i < j) {
    const size_t h = (i + j) >> 1;
    if (!pred(h)) {
      i = h + 1;
    } else {
      j = h;
    }
  }
  return i;
}

}  // namespace

BucketQuantileResult bucket_quantile(double q, std::vector<Bucket> buckets, double small_delta_tolerance) {
  if (std::isnan(q)) return {kNaN, false, false};
  if (q < 0) return {-kInf, false, false};
  if (q > 1) return {kInf, false, false};
  if (buckets.empty()) return {kNaN, false, false};
  sort_buckets(buckets);
  if (!(std::isinf(buckets.back().upper_bound) && buckets.back().upper_bound > 0)) return {kNaN, false, false};

  coalesce(buckets);
  bool forced = false, fixed = false;
  if (small_delta_tolerance > 0) {
    ensure_monotonic_ignore_small_deltas(buckets, small_delta_tolerance, forced, fixed);
  } else {
    forced = ensure_monotonic(buckets);
  }

  if (buckets.size() < 2) return {kNaN, false, false};
  const double observations = buckets.back().count;
  if (observations == 0) return {kNaN, false, false};
  double rank = q * observations;
  const size_t n = buckets.size();
  const size_t b = go_search(n - 1, [&](size_t i) { return buckets[i].count >= rank; });

  if (b == n - 1) return {buckets[n - 2].upper_bound, forced, fixed};
  if (b == 0 && buckets[0].upper_bound <= 0) return {buckets[0].upper_bound, forced, fixed};
  double bucket_start = 0;
  const double bucket_end = buckets[b].upper_bound;
  double count = buckets[b].count;
  if (b > 0) {
    bucket_start = buckets[b - 1].upper_bound;
    count -= buckets[b - 1].count;
    rank -= buckets[b - 1].count;
  }
  return {bucket_start + (bucket_end - bucket_start) * (rank / count), forced, fixed};
}

double bucket_fraction(double lower, double upper, std::vector<Bucket> buckets) {
  if (buckets.empty()) return kNaN;
  sort_buckets(buckets);
  if (!(std::isinf(buckets.back().upper_bound) && buckets.back().upper_bound > 0)) return kNaN;
  coalesce(buckets);
  bool forced = false, fixed = false;
  ensure_monotonic_ignore_small_deltas(buckets, kSmallDeltaTolerance3x, forced, fixed);

  const double count = buckets.back().count;
  if (count == 0 || std::isnan(lower) || std::isnan(upper)) return kNaN;
  if (lower >= upper) return 0;

  double rank = 0, lower_rank = 0, upper_rank = 0;
  bool lower_set = false, upper_set = false;
  for (size_t i = 0; i < buckets.size(); i++) {
    // The lowest bucket spans (0, bound] for a positive bound, else
    // (-Inf, bound] with its observations at the bound.
    const double lo = i > 0 ? buckets[i - 1].upper_bound : (buckets[0].upper_bound > 0 ? 0 : -kInf);
    const double hi = buckets[i].upper_bound;
    const double in_bucket = buckets[i].count - rank;
    auto interpolate = [&](double v) {
      if (std::isinf(lo)) return rank;  // Everything in this bucket is at `hi` > v.
      return rank + in_bucket * (v - lo) / (hi - lo);
    };
    if (!lower_set && lo >= lower) {
      lower_rank = rank;
      lower_set = true;
    }
    if (!upper_set && lo >= upper) {
      upper_rank = rank;
      upper_set = true;
    }
    if (lower_set && upper_set) break;
    if (!lower_set && lo < lower && hi > lower) {
      lower_rank = interpolate(lower);
      lower_set = true;
    }
    if (!upper_set && lo < upper && hi > upper) {
      upper_rank = interpolate(upper);
      upper_set = true;
    }
    if (lower_set && upper_set) break;
    rank = buckets[i].count;
  }
  if (!lower_set || lower_rank > count) lower_rank = count;
  if (!upper_set || upper_rank > count) upper_rank = count;
  return (upper_rank - lower_rank) / count;
}

}  // namespace llmon::promql
