// Range-window functions (promql/range_functions.h). Expected values are
// worked out by hand from Prometheus's documented algorithms; each case
// shows its arithmetic. functions_promtool_diff_test.cpp checks the same
// functions against Prometheus 2.42 itself on random data.
#include "promql/range_functions.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

namespace llmon::promql {
namespace {

using model::Sample;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Samples at the given seconds with the given values.
std::vector<Sample> at(std::initializer_list<std::pair<double, double>> tv) {
  std::vector<Sample> out;
  for (auto [t, v] : tv) out.push_back({static_cast<int64_t>(t * 1000), v});
  return out;
}

std::vector<Sample> every_10s(std::initializer_list<double> vs) {
  std::vector<Sample> out;
  int64_t t = 0;
  for (double v : vs) {
    out.push_back({t, v});
    t += 10000;
  }
  return out;
}

TEST(RangeFunctionsRate, ExtrapolatesToBothBoundaries) {
  // Window [0s, 60s]; samples at 5, 20, 35, 50 s. Increase 30 over 45 s,
  // average interval 15 s (threshold 16.5): extrapolate 5 s at the start
  // (zero point 45 * 10/30 = 15 s away is farther) and 10 s at the end.
  auto s = at({{5, 10}, {20, 20}, {35, 30}, {50, 40}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 60000, true, false), 30.0 * 60 / 45);  // increase = 40
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 60000, true, true), 30.0 * 60 / 45 / 60);
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 60000, false, false), 40);  // delta
}

TEST(RangeFunctionsRate, GapBeyondThresholdExtrapolatesHalfAnInterval) {
  // Window [0s, 60s]; samples at 30, 40, 50 s: gap at the start 30 s >= 11 s
  // (1.1 x the 10 s interval). As a gauge: half an interval (5 s) at the
  // start, 10 s at the end: 20 * 35/20.
  auto s = at({{30, 10}, {40, 20}, {50, 30}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 60000, false, false), 35);
  // As a counter the start is first limited to the zero point, 20 * 10/20 =
  // 10 s before the first sample; 10 < 11, so 2.42 extrapolates those 10 s:
  // 20 * 40/20. (3.x substitutes 5 s first and gets 35.)
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 60000, true, false), 40);
}

TEST(RangeFunctionsRate, CounterZeroPointLimitsExtrapolation) {
  // Window [0s, 40s], samples at 10, 20, 30 s with values 1, 11, 21: zero
  // point 20 * 1/20 = 1 s before the first sample, nearer than the 10 s gap.
  auto s = at({{10, 1}, {20, 11}, {30, 21}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 40000, true, false), 20.0 * (20 + 1 + 10) / 20);
  // delta has no such limit: 20 * (20 + 10 + 10) / 20.
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 40000, false, false), 40);
}

TEST(RangeFunctionsRate, CounterResets) {
  // 10, 20, 5, 15 at 0..45 s in [0, 45]: 15 - 10 + 20 (the reset) = 25, no
  // extrapolation (samples on both boundaries).
  auto s = at({{0, 10}, {15, 20}, {30, 5}, {45, 15}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 45000, true, false), 25);
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 45000, true, true), 25.0 / 45);
  // As a gauge the drop is just a drop.
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 45000, false, false), 5);
  // Two resets in a row: 10, 2, 1 -> 1 - 10 + 10 + 2 = 3.
  auto r = at({{0, 10}, {15, 2}, {30, 1}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(r, 0, 30000, true, false), 3);
}

TEST(RangeFunctionsRate, NegativeFirstValueAndDecrease) {
  // A counter starting below zero: no zero-point limit (first value < 0).
  auto s = at({{10, -5}, {20, 5}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 30000, true, false), 10.0 * 30 / 10);
  // A decreasing gauge extrapolates the decrease.
  auto g = at({{0, 10}, {10, 5}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(g, 0, 20000, false, false), -10);
}

TEST(RangeFunctionsRate, TooFewSamples) {
  EXPECT_FALSE(extrapolated_rate({}, 0, 60000, true, true).has_value());
  auto one = at({{10, 5}});
  EXPECT_FALSE(extrapolated_rate(one, 0, 60000, true, true).has_value());
  EXPECT_FALSE(extrapolated_rate(one, 0, 60000, false, false).has_value());
}

TEST(RangeFunctionsRate, ZeroDurationWindow) {
  // A window [t, t] holds at most one sample: no rate, no irate.
  auto one = at({{30, 7}});
  EXPECT_FALSE(extrapolated_rate(one, 30000, 30000, true, true).has_value());
  EXPECT_FALSE(instant_rate(one, true).has_value());
  EXPECT_EQ(sum_over_time(one), 7);
  EXPECT_EQ(count_over_time(one), 1);
  EXPECT_EQ(stddev_over_time(one), 0);
}

TEST(RangeFunctionsRate, RangeInSecondsLikeGoDuration) {
  // 1.5 s window: rate divides by 1.5.
  auto s = at({{0, 0}, {1.5, 3}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 1500, true, true), 2);
}

TEST(RangeFunctionsRate, NaNAndInfPropagate) {
  auto s = at({{0, 1}, {10, kNaN}, {20, 3}});
  EXPECT_DOUBLE_EQ(*extrapolated_rate(s, 0, 20000, true, false), 2);  // NaN < x is false: no reset
  auto n = at({{0, 1}, {10, kNaN}});
  EXPECT_TRUE(std::isnan(*extrapolated_rate(n, 0, 10000, true, false)));
  auto i = at({{0, 1}, {10, kInf}});
  EXPECT_EQ(*extrapolated_rate(i, 0, 10000, false, false), kInf);
}

TEST(RangeFunctionsInstant, IrateAndIdelta) {
  auto s = at({{0, 1}, {10, 4}, {15, 10}});
  EXPECT_DOUBLE_EQ(*instant_rate(s, true), 6.0 / 5);
  EXPECT_DOUBLE_EQ(*instant_rate(s, false), 6);
  auto reset = at({{0, 10}, {10, 5}});
  EXPECT_DOUBLE_EQ(*instant_rate(reset, true), 0.5);  // reset: the last value per second
  EXPECT_DOUBLE_EQ(*instant_rate(reset, false), -5);
  EXPECT_FALSE(instant_rate(at({{0, 1}}), true).has_value());
  EXPECT_FALSE(instant_rate({}, false).has_value());
  std::vector<Sample> same_time = {{1000, 1}, {1000, 2}};
  EXPECT_FALSE(instant_rate(same_time, true).has_value());
}

TEST(RangeFunctionsOverTime, SumAndAvg) {
  EXPECT_EQ(sum_over_time(every_10s({1e100, 1, -1e100})), 1);  // Kahan
  EXPECT_EQ(sum_over_time(every_10s({kInf, 1})), kInf);
  EXPECT_EQ(sum_over_time(every_10s({2.5})), 2.5);
  EXPECT_EQ(avg_over_time(every_10s({1, 2, 3, 4})), 2.5);
  // 2.42's incremental mean: 1e100, then 1e100 + (1/2 - 1e100/2) ... ends at 0.
  EXPECT_EQ(avg_over_time(every_10s({1e100, 1, -1e100})), 0);
  EXPECT_EQ(avg_over_time(every_10s({1.5e308, 1.5e308, 1.5e308})), 1.5e308);  // no overflow
  EXPECT_EQ(avg_over_time(every_10s({kInf, 1, kInf})), kInf);
  EXPECT_TRUE(std::isnan(avg_over_time(every_10s({kInf, -kInf}))));
  EXPECT_TRUE(std::isnan(avg_over_time(every_10s({1, kNaN}))));
}

TEST(RangeFunctionsOverTime, MinMaxSkipNaN) {
  auto s = every_10s({kNaN, 3, kNaN, 1, 2});
  EXPECT_EQ(min_over_time(s), 1);
  EXPECT_EQ(max_over_time(s), 3);
  EXPECT_TRUE(std::isnan(max_over_time(every_10s({kNaN, kNaN}))));
  EXPECT_EQ(max_over_time(every_10s({-kInf, -5})), -5);
  EXPECT_EQ(min_over_time(every_10s({kInf, -kInf})), -kInf);
}

TEST(RangeFunctionsOverTime, CountLastPresent) {
  auto s = every_10s({5, kNaN, 7});
  EXPECT_EQ(count_over_time(s), 3);
  EXPECT_EQ(last_over_time(s), 7);
  EXPECT_TRUE(std::isnan(last_over_time(every_10s({1, kNaN}))));
  EXPECT_EQ(present_over_time(s), 1);
}

TEST(RangeFunctionsOverTime, StddevStdvar) {
  auto s = every_10s({2, 4, 4, 4, 5, 5, 7, 9});  // mean 5, squared deviations 32
  EXPECT_DOUBLE_EQ(stdvar_over_time(s), 4);
  EXPECT_DOUBLE_EQ(stddev_over_time(s), 2);
  EXPECT_EQ(stdvar_over_time(every_10s({3})), 0);
  // Large offset: Kahan-compensated Welford still finds the spread of 1e9+{0,1}.
  EXPECT_DOUBLE_EQ(stdvar_over_time(every_10s({1e9, 1e9 + 1})), 0.25);
  EXPECT_TRUE(std::isnan(stddev_over_time(every_10s({1, kInf}))));
}

TEST(RangeFunctionsOverTime, QuantileAndMad) {
  auto s = every_10s({40, 10, 30, 20});
  EXPECT_EQ(quantile_over_time(0.5, s), 25);
  EXPECT_EQ(quantile_over_time(0, s), 10);
  EXPECT_EQ(quantile_over_time(-1, s), -kInf);
  EXPECT_EQ(quantile_over_time(2, s), kInf);
  EXPECT_TRUE(std::isnan(quantile_over_time(kNaN, s)));
  // mad: median of {1,1,2,2,4,6,9} is 2; |deviations| {1,1,0,0,2,4,7}, median 1.
  EXPECT_EQ(mad_over_time(every_10s({1, 1, 2, 2, 4, 6, 9})), 1);
  EXPECT_EQ(mad_over_time(every_10s({5})), 0);
}

TEST(RangeFunctionsOverTime, ChangesAndResets) {
  // 1->1 no, 1->2 yes, 2->NaN yes, NaN->NaN no, NaN->2 yes.
  EXPECT_EQ(changes(every_10s({1, 1, 2, kNaN, kNaN, 2})), 3);
  EXPECT_EQ(changes(every_10s({7})), 0);
  // 5>3 yes, 3=3 no, 3>1 yes, 1->NaN no, NaN->0 no.
  EXPECT_EQ(resets(every_10s({5, 3, 3, 1, kNaN, 0})), 2);
  EXPECT_EQ(resets(every_10s({1, 2, 3})), 0);
}

TEST(RangeFunctionsRegression, DerivAndPredictLinear) {
  // y = 2x + 1 with x in seconds.
  auto s = at({{0, 1}, {10, 21}, {20, 41}});
  EXPECT_DOUBLE_EQ(*deriv(s), 2);
  // Line evaluated 10 s after t = 20 s: 41 + 2 * 10.
  EXPECT_DOUBLE_EQ(*predict_linear(s, 10, 20000), 61);
  // Intercept at t = 40 s (past the last sample): 81, plus 2 * -5.
  EXPECT_DOUBLE_EQ(*predict_linear(s, -5, 40000), 71);
  // Noisy points: x = 0, 10, 20, y = 0, 10, 5: slope = cov/var = 50/200.
  EXPECT_DOUBLE_EQ(*deriv(at({{0, 0}, {10, 10}, {20, 5}})), 0.25);
}

TEST(RangeFunctionsRegression, ConstantAndTooFew) {
  EXPECT_EQ(*deriv(every_10s({5, 5, 5})), 0);
  EXPECT_EQ(*predict_linear(every_10s({5, 5, 5}), 100, 30000), 5);
  EXPECT_TRUE(std::isnan(*deriv(every_10s({kInf, kInf}))));
  EXPECT_FALSE(deriv(every_10s({1})).has_value());
  EXPECT_FALSE(predict_linear({}, 10, 0).has_value());
  // Large timestamps: x is relative to the first sample, so no precision loss.
  auto big = at({{1.7e9, 100}, {1.7e9 + 60, 160}});
  EXPECT_DOUBLE_EQ(*deriv(big), 1);
}

TEST(RangeFunctionsSmoothing, Values) {
  // sf = tf = 0.5 on a line keeps the line: 1, 2, 3 -> 3.
  auto r = double_exponential_smoothing(every_10s({1, 2, 3}), 0.5, 0.5);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(**r, 3);
  // 0, 10, 0: s1=0, b=10; i=1: 0.5*10 + 0.5*(0+10) = 10; i=2: b = 0.5*(10-0) +
  // 0.5*10 = 10, 0.5*0 + 0.5*(10+10) = 10.
  auto p = double_exponential_smoothing(every_10s({0, 10, 0}), 0.5, 0.5);
  ASSERT_TRUE(p);
  EXPECT_EQ(**p, 10);
  // sf 0.2, tf 0.8 on 0, 10: s1 = 0.2*10 + 0.8*(0 + 10) = 10.
  auto q = double_exponential_smoothing(every_10s({0, 10}), 0.2, 0.8);
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(**q, 10);
  auto one = double_exponential_smoothing(every_10s({4}), 0.5, 0.5);
  ASSERT_TRUE(one);
  EXPECT_FALSE(one->has_value());
}

TEST(RangeFunctionsSmoothing, FactorErrors) {
  auto s = every_10s({1, 2});
  auto bad_sf = double_exponential_smoothing(s, 0, 0.5);
  ASSERT_FALSE(bad_sf);
  EXPECT_EQ(bad_sf.error(), "invalid smoothing factor. Expected: 0 < sf < 1, got: 0.000000");
  auto bad_tf = double_exponential_smoothing(s, 0.5, 1);
  ASSERT_FALSE(bad_tf);
  EXPECT_EQ(bad_tf.error(), "invalid trend factor. Expected: 0 < tf < 1, got: 1.000000");
  // The factors are checked even when there is nothing to smooth.
  EXPECT_FALSE(double_exponential_smoothing({}, 1.5, 0.5));
  EXPECT_EQ(check_smoothing_factors(-kInf, 0.5).message(), "invalid smoothing factor. Expected: 0 < sf < 1, got: -Inf");
  // Prometheus's `sf <= 0 || sf >= 1` lets NaN through.
  EXPECT_TRUE(check_smoothing_factors(kNaN, 0.5).is_ok());
  EXPECT_TRUE(check_smoothing_factors(0.1, 0.9).is_ok());
}

}  // namespace
}  // namespace llmon::promql

namespace llmon::promql {
namespace {

// The four-lane forms return, bit for bit, what the one-window functions do,
// for windows of different lengths (empty ones included) and values with
// NaN, ±Inf, huge and tiny magnitudes.
TEST(RangeFunctionLanes, BitForBitAsOneWindowAtATime) {
  std::mt19937_64 rng(7);
  const double specials[] = {std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             1e308,
                             -1e308,
                             1e-300,
                             0.0,
                             -0.0};
  std::vector<std::vector<model::Sample>> store;
  for (int round = 0; round < 4000; ++round) {
    store.assign(kLanes, {});
    size_t lanes = 1 + rng() % kLanes;
    for (size_t l = 0; l < lanes; ++l) {
      size_t len = rng() % 9 == 0 ? 0 : rng() % 60;
      for (size_t j = 0; j < len; ++j) {
        double v = rng() % 17 == 0 ? specials[rng() % std::size(specials)]
                                   : std::ldexp(static_cast<double>(static_cast<int64_t>(rng() >> 20)),
                                                static_cast<int>(rng() % 40) - 30);
        store[l].push_back({static_cast<int64_t>(j) * 1000, v});
      }
    }
    std::vector<SampleSpan> ws;
    for (size_t l = 0; l < lanes; ++l) ws.emplace_back(store[l]);
    double avg[kLanes], sum[kLanes];
    avg_over_time_lanes(ws, avg);
    sum_over_time_lanes(ws, sum);
    // NaN's sign bit may differ (which operand x86 propagates); PromQL
    // never shows it: every NaN is written "NaN".
    auto bits = [](double x) { return std::isnan(x) ? uint64_t{0x7ff8000000000000} : std::bit_cast<uint64_t>(x); };
    for (size_t l = 0; l < lanes; ++l) {
      double a = avg_over_time(ws[l]), s = sum_over_time(ws[l]);
      EXPECT_EQ(bits(avg[l]), bits(a)) << "round " << round << " lane " << l << ": " << avg[l] << " vs " << a;
      EXPECT_EQ(bits(sum[l]), bits(s)) << "round " << round << " lane " << l << ": " << sum[l] << " vs " << s;
    }
  }
}

}  // namespace
}  // namespace llmon::promql
