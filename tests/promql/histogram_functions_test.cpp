// Classic-histogram quantile and fraction (promql/histogram_functions.h).
// Bucket data and expected numbers are taken from Prometheus's
// promql/promqltest/testdata/histograms.test (evaluated at 50m, i.e. ten times
// the per-5m increments) and from hand interpolation, shown per case.
#include "promql/histogram_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace llmon::promql {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// testhistogram{start="positive"} at 50m.
const std::vector<Bucket> kPositive = {{0.1, 50}, {0.2, 70}, {1, 110}, {kInf, 120}};
// testhistogram{start="negative"} at 50m.
const std::vector<Bucket> kNegative = {{-0.2, 10}, {-0.1, 20}, {0.3, 20}, {kInf, 30}};
// testhistogram2 at 7m (each bucket counts the 5m sample).
const std::vector<Bucket> kMiddles = {{0, 0}, {2, 1}, {4, 2}, {6, 3}, {kInf, 3}};

double q(double quantile, std::vector<Bucket> b) {
  return bucket_quantile(quantile, std::move(b)).value;
}

TEST(HistogramQuantile, PromqlTestData) {
  EXPECT_DOUBLE_EQ(q(0.2, kPositive), 0.048);  // rank 24 in (0, 0.1]: 0.1 * 24/50
  EXPECT_DOUBLE_EQ(q(0.5, kPositive), 0.15);   // rank 60 in (0.1, 0.2]: 0.1 + 0.1 * 10/20
  EXPECT_DOUBLE_EQ(q(0.8, kPositive), 0.72);   // rank 96 in (0.2, 1]: 0.2 + 0.8 * 26/40
  EXPECT_EQ(q(0, kPositive), 0);
  EXPECT_EQ(q(1, kPositive), 1);     // in the +Inf bucket: the second highest bound
  EXPECT_EQ(q(0, kNegative), -0.2);  // lowest bound <= 0 is returned as is
  EXPECT_EQ(q(0.2, kNegative), -0.2);
  EXPECT_DOUBLE_EQ(q(0.5, kNegative), -0.15);
  EXPECT_DOUBLE_EQ(q(0.8, kNegative), 0.3);
  EXPECT_DOUBLE_EQ(q(1, kNegative), 0.3);
  EXPECT_DOUBLE_EQ(q(1.0 / 6, kMiddles), 1);
  EXPECT_DOUBLE_EQ(q(0.5, kMiddles), 3);
  EXPECT_DOUBLE_EQ(q(5.0 / 6, kMiddles), 5);
}

TEST(HistogramQuantile, OutOfRangeQuantiles) {
  EXPECT_EQ(q(-0.1, kPositive), -kInf);
  EXPECT_EQ(q(1.01, kPositive), kInf);
  EXPECT_TRUE(std::isnan(q(kNaN, kPositive)));
  // q is checked before the buckets: even no buckets give ±Inf.
  EXPECT_EQ(q(-1, {}), -kInf);
}

TEST(HistogramQuantile, UnsortedAndDuplicateBounds) {
  std::vector<Bucket> shuffled = {{kInf, 120}, {0.2, 70}, {1, 110}, {0.1, 50}};
  EXPECT_DOUBLE_EQ(q(0.5, shuffled), 0.15);
  // mixed_bucket: le 0.1, 0.2, 2e-1, 2.0e-1, +Inf each 10 at 50m: the three
  // 0.2 buckets are added (30); rank 20 in (0.1, 0.2]: 0.1 + 0.1 * 10/20.
  std::vector<Bucket> dup = {{0.1, 10}, {0.2, 10}, {0.2, 10}, {0.2, 10}, {kInf, 40}};
  EXPECT_DOUBLE_EQ(q(0.5, dup), 0.15);
  // Two +Inf buckets with 0 each: one bucket left -> NaN.
  EXPECT_TRUE(std::isnan(q(0.5, {{kInf, 0}, {kInf, 0}})));
}

TEST(HistogramQuantile, InvalidHistograms) {
  EXPECT_TRUE(std::isnan(q(0.5, {})));
  EXPECT_TRUE(std::isnan(q(0.5, {{1, 5}, {2, 10}})));     // no +Inf bucket
  EXPECT_TRUE(std::isnan(q(0.5, {{kInf, 10}})));          // fewer than 2 buckets
  EXPECT_TRUE(std::isnan(q(0.5, {{1, 0}, {kInf, 0}})));   // no observations
  EXPECT_TRUE(std::isnan(q(0.5, {{-kInf, 3}, {1, 5}})));  // highest bound must be +Inf
}

TEST(HistogramQuantile, ForcedMonotonic) {
  // 1:10, 2:5 (impossible), 3:20 -> 2 is raised to 10; rank 10 is reached
  // in the first bucket: 0 + 1 * 10/10.
  auto r = bucket_quantile(0.5, {{1, 10}, {2, 5}, {3, 20}, {kInf, 20}});
  EXPECT_DOUBLE_EQ(r.value, 1);
  EXPECT_TRUE(r.forced_monotonic);
  EXPECT_FALSE(r.fixed_precision);
  EXPECT_FALSE(bucket_quantile(0.5, kPositive).forced_monotonic);
  // Raised +Inf bucket: 1:10, +Inf:4 -> +Inf becomes 10, rank 5 in (0, 1].
  auto s = bucket_quantile(0.5, {{1, 10}, {kInf, 4}});
  EXPECT_DOUBLE_EQ(s.value, 0.5);
  EXPECT_TRUE(s.forced_monotonic);
}

TEST(HistogramQuantile, SmallDeltaToleranceIs3xOnly) {
  // Counts 1:100, 2:100*(1+1e-13), 3:200: rank 100.000000000000005 (q =
  // 0.50000000000000002.. rounds to 0.5 -> rank 100) -- use q where rank
  // lands between the two nearly-equal counts.
  const double c1 = 100, c2 = 100 * (1 + 4e-13);
  std::vector<Bucket> b = {{1, c1}, {2, c2}, {3, 200}, {kInf, 200}};
  const double quantile = (c1 + c2) / 2 / 200;  // rank strictly between c1 and c2
  // 2.42: the rank falls in (1, 2], interpolated near its middle.
  auto old = bucket_quantile(quantile, b);
  EXPECT_GT(old.value, 1.2);
  EXPECT_LT(old.value, 1.8);
  EXPECT_FALSE(old.fixed_precision);
  // 3.x: c2 is treated as equal to c1, the rank falls in (2, 3], just above 2.
  auto now = bucket_quantile(quantile, b, kSmallDeltaTolerance3x);
  EXPECT_GT(now.value, 2);
  EXPECT_LT(now.value, 2.000001);
  EXPECT_TRUE(now.fixed_precision);
  EXPECT_FALSE(now.forced_monotonic);
  // 3.x also forgives a tiny decrease without calling it forced.
  auto dec = bucket_quantile(0.25, {{1, 100}, {2, 100 * (1 - 4e-13)}, {kInf, 200}}, kSmallDeltaTolerance3x);
  EXPECT_TRUE(dec.fixed_precision);
  EXPECT_FALSE(dec.forced_monotonic);
  EXPECT_DOUBLE_EQ(dec.value, 0.5);
}

TEST(HistogramQuantile, LargeAndNegativeValues) {
  std::vector<Bucket> big = {{1e300, 1e300}, {kInf, 2e300}};
  EXPECT_DOUBLE_EQ(q(0.25, big), 0.5e300);
  std::vector<Bucket> neg = {{-10, 1}, {-5, 3}, {kInf, 4}};
  EXPECT_DOUBLE_EQ(q(0.5, neg), -7.5);  // rank 2 in (-10, -5]: -10 + 5 * 1/2
}

// histogram_fraction(lower, upper, buckets).
TEST(HistogramFraction, PromqlTestData) {
  // testhistogram2_bucket at 50m: 0:0, 2:10, 4:20, 6:30, +Inf:30.
  const std::vector<Bucket> h2 = {{0, 0}, {2, 10}, {4, 20}, {6, 30}, {kInf, 30}};
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 4, h2), 0.6666666666666666);
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 6, h2), 1);
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 3.5, h2), 0.5833333333333334);  // (10 + 10 * 1.5/2) / 30
  // testhistogram3_bucket at 50m.
  const std::vector<Bucket> pos = {{0, 0}, {0.1, 50}, {0.2, 70}, {1, 110}, {kInf, 110}};
  const std::vector<Bucket> neg = {{-0.25, 0}, {-0.2, 10}, {-0.1, 20}, {0.3, 20}, {kInf, 20}};
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 0.2, pos), 0.6363636363636364);
  EXPECT_EQ(bucket_fraction(0, 0.2, neg), 0);
}

TEST(HistogramFraction, FirstBucket) {
  // Positive lowest bound: that bucket spans (0, 1] (prometheus#17367):
  // 1 + (1.5-1)/(2-1) * 2 = 2 of 100.
  const std::vector<Bucket> b = {{1, 1}, {2, 3}, {3, 6}, {kInf, 100}};
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 1.5, b), 0.02);
  EXPECT_DOUBLE_EQ(bucket_fraction(-5, 0.5, b), 0.005);
  // Lowest bound 0: its observations are at or below 0 (prometheus#19657's
  // classic reference): 0:4, 1:7, 2:9, +Inf:10.
  const std::vector<Bucket> z = {{0, 4}, {1, 7}, {2, 9}, {kInf, 10}};
  EXPECT_DOUBLE_EQ(bucket_fraction(-kInf, 0, z), 0.4);
  EXPECT_DOUBLE_EQ(bucket_fraction(0, kInf, z), 0.6);
  // Lower bound strictly inside (-Inf, 0]: the observations sit at 0, above it.
  EXPECT_DOUBLE_EQ(bucket_fraction(-1, 0.5, z), (4 + 1.5) / 10);
  EXPECT_DOUBLE_EQ(bucket_fraction(-kInf, -1, z), 0);
}

TEST(HistogramFraction, SpecialCases) {
  const std::vector<Bucket> b = {{1, 10}, {kInf, 20}};
  EXPECT_EQ(bucket_fraction(1, 1, b), 0);
  EXPECT_EQ(bucket_fraction(2, 1, b), 0);
  EXPECT_EQ(bucket_fraction(-kInf, kInf, b), 1);
  EXPECT_DOUBLE_EQ(bucket_fraction(0.5, kInf, b), 0.75);  // 5 of (0, 1] plus the 10 above
  EXPECT_DOUBLE_EQ(bucket_fraction(1, 1e9, b), 0);        // +Inf-bucket observations sit at +Inf
  EXPECT_TRUE(std::isnan(bucket_fraction(kNaN, 1, b)));
  EXPECT_TRUE(std::isnan(bucket_fraction(0, kNaN, b)));
  EXPECT_TRUE(std::isnan(bucket_fraction(0, 1, {})));
  EXPECT_TRUE(std::isnan(bucket_fraction(0, 1, {{1, 10}, {2, 20}})));  // no +Inf
  EXPECT_TRUE(std::isnan(bucket_fraction(0, 1, {{kInf, 0}})));
  // Unsorted, duplicate, non-monotonic input is normalised as for quantiles.
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 1, {{kInf, 20}, {1, 4}, {1, 6}}), 0.5);
  EXPECT_DOUBLE_EQ(bucket_fraction(0, 2, {{1, 10}, {2, 5}, {kInf, 20}}), 0.5);
}

}  // namespace
}  // namespace llmon::promql
