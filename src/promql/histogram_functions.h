// histogram_quantile and histogram_fraction on classic (le-bucket)
// histograms: pure functions on one histogram's cumulative buckets, as
// Prometheus's promql/quantile.go computes them. Grouping the `_bucket`
// series by their labels without `le` and parsing `le` is the engine's job.
// Native histograms are not supported. Stateless; safe from any thread.
#pragma once

#include <vector>

namespace llmon::promql {

// One cumulative bucket: the number of observations <= upper_bound.
struct Bucket {
  double upper_bound;
  double count;
};

struct BucketQuantileResult {
  double value;
  // Some bucket count was lower than a bucket below it and was raised to it
  // (3.x reports this as an info annotation; 2.42 fixes it silently).
  bool forced_monotonic;
  // 3.x mode only: a relative difference <= the tolerance between adjacent
  // buckets was treated as none.
  bool fixed_precision;
};

// 3.x's smallDeltaTolerance: relative differences up to this between adjacent
// bucket counts are taken to be floating-point noise.
inline constexpr double kSmallDeltaTolerance3x = 1e-12;

// Prometheus's bucketQuantile. In order: NaN q -> NaN; q < 0 -> -Inf; q > 1 ->
// +Inf; buckets sorted by upper bound (NaN bounds first); the highest bound
// not +Inf (or no buckets) -> NaN; buckets with equal bounds merged (counts
// added); counts made monotonic (each raised to the highest count below it);
// fewer than 2 buckets or 0 observations (+Inf bucket count) -> NaN. The rank
// q * observations is found by binary search over all but the +Inf bucket
// (as Go's sort.Search does); in the +Inf bucket the result is the second
// highest bound; in the lowest bucket with a bound <= 0 that bound; else
// linear interpolation in the bucket, whose lower end is the bound below it,
// or 0 for the lowest bucket.
//
// small_delta_tolerance 0 (the default) is Prometheus 2.42: no tolerance.
// kSmallDeltaTolerance3x gives 3.x's ensureMonotonicAndIgnoreSmallDeltas:
// adjacent counts within that relative tolerance are made equal, in either
// direction. The two differ only when counts differ by about 1e-12 relative,
// e.g. after sum(rate(...)) by (le) over counters with rounding noise.
BucketQuantileResult bucket_quantile(double q, std::vector<Bucket> buckets, double small_delta_tolerance = 0);

// histogram_fraction(lower, upper, b) on classic buckets — Prometheus 3.x only
// (2.42's histogram_fraction ignores float samples, i.e. returns nothing for
// classic histograms). The estimated fraction of observations in (lower,
// upper], interpolating linearly inside buckets as histogram_quantile does:
// the lowest bucket spans (0, bound] when its bound is > 0; when its bound
// is <= 0 its observations are taken to sit at that bound (consistent with
// bucket_quantile); observations in the +Inf bucket sit at +Inf.
// Special cases: no buckets, highest bound not +Inf, 0 observations, or a NaN
// bound -> NaN; lower >= upper -> 0. Buckets are sorted, merged and made
// monotonic (with 3.x's small-delta tolerance) as for bucket_quantile.
double bucket_fraction(double lower, double upper, std::vector<Bucket> buckets);

}  // namespace llmon::promql
