// Kahan summation, quantile interpolation and the avg/stddev accumulators
// (promql/aggregate_math.h). Expected values are worked out by hand from the
// formulas in the header.
#include "promql/aggregate_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace llmon::promql {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double kahan(std::initializer_list<double> vs) {
  KahanSum s;
  for (double v : vs) s.add(v);
  return s.value();
}

TEST(AggregateMathKahan, RecoversLowOrderBits) {
  // Plain summation gives 0 (1 is lost next to 1e100) and 0.9999999999999999.
  EXPECT_EQ(kahan({1e100, 1, -1e100}), 1);
  KahanSum s;
  for (int i = 0; i < 10; i++) s.add(0.1);
  EXPECT_EQ(s.value(), 1.0);
  EXPECT_EQ(s.sum, 0.9999999999999999);  // The compensation holds the rest.
}

TEST(AggregateMathKahan, Infinities) {
  // The compensation is reset on overflow so Inf + c stays Inf, not NaN.
  EXPECT_EQ(kahan({kInf, 1}), kInf);
  EXPECT_EQ(kahan({1.7e308, 1.7e308}), kInf);
  EXPECT_EQ(kahan({-kInf, -1}), -kInf);
  EXPECT_TRUE(std::isnan(kahan({kInf, -kInf})));
  EXPECT_TRUE(std::isnan(kahan({1, kNaN, 2})));
  EXPECT_EQ(kahan({}), 0);
}

TEST(AggregateMathKahan, IncMatchesStruct) {
  double sum = 0, c = 0;
  kahan_sum_inc(1e100, sum, c);
  kahan_sum_inc(1, sum, c);
  kahan_sum_inc(-1e100, sum, c);
  EXPECT_EQ(sum, 0);
  EXPECT_EQ(c, 1);
}

TEST(AggregateMathQuantile, Interpolates) {
  EXPECT_EQ(quantile_of(0.5, {4, 1, 3, 2}), 2.5);  // rank 1.5 between 2 and 3
  EXPECT_EQ(quantile_of(0, {4, 1, 3, 2}), 1);
  EXPECT_EQ(quantile_of(1, {4, 1, 3, 2}), 4);
  EXPECT_EQ(quantile_of(0.25, {10, 20, 30, 40, 50}), 20);        // rank exactly 1
  EXPECT_DOUBLE_EQ(quantile_of(0.9, {10, 20, 30, 40, 50}), 46);  // rank 3.6: 40*0.4 + 50*0.6
  EXPECT_EQ(quantile_of(0.3, {7}), 7);
  EXPECT_EQ(quantile_of(0.5, {-1, -3}), -2);
}

TEST(AggregateMathQuantile, OutOfRangeAndEmpty) {
  EXPECT_EQ(quantile_of(-0.1, {1, 2}), -kInf);
  EXPECT_EQ(quantile_of(1.1, {1, 2}), kInf);
  EXPECT_TRUE(std::isnan(quantile_of(kNaN, {1, 2})));
  EXPECT_TRUE(std::isnan(quantile_of(0.5, {})));
  // The range checks come after the emptiness check, as in Prometheus.
  EXPECT_TRUE(std::isnan(quantile_of(-1, {})));
}

TEST(AggregateMathQuantile, NaNSortsFirstAndInfTimesZero) {
  EXPECT_TRUE(std::isnan(quantile_of(0, {2, kNaN, 1})));
  EXPECT_EQ(quantile_of(1, {2, kNaN, 1}), 2);
  EXPECT_EQ(quantile_of(0.5, {kNaN, 1, 3}), 1);
  // Weight 0 still multiplies the upper neighbour: Inf * 0 is NaN.
  EXPECT_TRUE(std::isnan(quantile_of(0, {1, kInf})));
  // At q = 1 both indexes are the top one: Inf*1 + Inf*0 is NaN too.
  EXPECT_TRUE(std::isnan(quantile_of(1, {1, kInf})));
  EXPECT_EQ(quantile_of(0.5, {1, kInf}), kInf);
}

TEST(AggregateMathMean, IncrementalMean) {
  MeanAccumulator m;
  EXPECT_TRUE(std::isnan(m.value()));
  for (double v : {1.0, 2.0, 3.0, 4.0}) m.add(v);
  EXPECT_EQ(m.value(), 2.5);

  MeanAccumulator big;  // A running sum would overflow to Inf.
  big.add(1.5e308);
  big.add(1.5e308);
  EXPECT_EQ(big.value(), 1.5e308);
}

TEST(AggregateMathMean, Infinities) {
  MeanAccumulator a;
  a.add(kInf);
  a.add(1);
  a.add(kInf);
  EXPECT_EQ(a.value(), kInf);
  MeanAccumulator b;
  b.add(1);
  b.add(-kInf);
  b.add(5);
  EXPECT_EQ(b.value(), -kInf);
  MeanAccumulator c;
  c.add(kInf);
  c.add(-kInf);
  EXPECT_TRUE(std::isnan(c.value()));
  MeanAccumulator d;
  d.add(kInf);
  d.add(kNaN);
  EXPECT_TRUE(std::isnan(d.value()));
}

TEST(AggregateMathWelford, PopulationVariance) {
  WelfordAccumulator w;
  EXPECT_TRUE(std::isnan(w.variance()));
  for (double v : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) w.add(v);
  EXPECT_DOUBLE_EQ(w.variance(), 4);  // mean 5, squared deviations sum to 32
  EXPECT_DOUBLE_EQ(w.stddev(), 2);
  WelfordAccumulator one;
  one.add(42);
  EXPECT_EQ(one.variance(), 0);
  WelfordAccumulator inf;  // First value infinite: mean Inf, m2 stays 0 until the next.
  inf.add(kInf);
  EXPECT_EQ(inf.variance(), 0);
  inf.add(1);
  EXPECT_TRUE(std::isnan(inf.variance()));
}

}  // namespace
}  // namespace llmon::promql
