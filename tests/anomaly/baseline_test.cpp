// The per-series baseline: cold start, robust scale, floors, adaptation and
// the hour-of-day seasonality, on features fed with an injected time.
#include "anomaly/baseline.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llmon::anomaly {
namespace {

constexpr int64_t kMin = 60'000;
constexpr int64_t kHour = 60 * kMin;

// A steady series with a small alternating wobble: median 50, MAD 1.
void feed(Baseline& b, int64_t from_ms, int n, double centre = 50, double wobble = 1) {
  for (int i = 0; i < n; ++i) b.add(from_ms + i * kMin, centre + (i % 2 ? wobble : -wobble));
}

TEST(Baseline, NotReadyUntilMinFeatures) {
  BaselineOptions o;
  o.min_features = 30;
  Baseline b(o);
  feed(b, 0, 29);
  EXPECT_FALSE(b.ready());
  EXPECT_FALSE(b.deviation(29 * kMin, 500).ready) << "cold start: no score however far off";
  feed(b, 29 * kMin, 1);
  EXPECT_TRUE(b.ready());
  EXPECT_TRUE(b.deviation(30 * kMin, 50).ready);
}

TEST(Baseline, RobustZAgainstMedianAndMad) {
  BaselineOptions o;
  o.rel_floor = 0;
  Baseline b(o);
  feed(b, 0, 60);
  Deviation d = b.deviation(60 * kMin, 50 + 1.4826 * 6);
  ASSERT_TRUE(d.ready);
  EXPECT_NEAR(d.centre, 50, 1e-9);
  EXPECT_NEAR(d.scale, 1.4826, 1e-4);
  EXPECT_NEAR(d.z, 6, 1e-3);
  EXPECT_NEAR(score_of(d.z), 6.0 / 14, 1e-3);
  EXPECT_LT(score_of(d.z), kAnomalousScore) << "6 robust sigmas are not yet anomalous (7 are)";
  EXPECT_LT(b.deviation(60 * kMin, 51).z, 1);
}

TEST(Baseline, OutliersInTheHistoryDoNotInflateTheScale) {
  BaselineOptions o;
  o.rel_floor = 0;
  Baseline mad(o);
  o.method = Method::kMeanStd;
  Baseline std_(o);
  for (int i = 0; i < 60; ++i) {
    double x = i % 10 == 0 ? 100 : 50 + (i % 2 ? 1 : -1);  // an eval pass every 10 minutes
    mad.add(i * kMin, x);
    std_.add(i * kMin, x);
  }
  EXPECT_GT(mad.deviation(60 * kMin, 60).z, 5) << "median/MAD: a 10-point step stays anomalous";
  EXPECT_LT(std_.deviation(60 * kMin, 60).z, 1) << "mean/std: the outliers widen the scale";
}

TEST(Baseline, FloorsBoundTheScaleOfAFlatSeries) {
  BaselineOptions o;
  o.abs_floor = 2;
  o.rel_floor = 0.02;
  Baseline b(o);
  for (int i = 0; i < 60; ++i) b.add(i * kMin, 50);  // MAD 0
  Deviation d = b.deviation(60 * kMin, 51);
  EXPECT_DOUBLE_EQ(d.scale, 2);
  EXPECT_DOUBLE_EQ(d.z, 0.5);
  Baseline big(o);
  for (int i = 0; i < 60; ++i) big.add(i * kMin, 1000);
  EXPECT_DOUBLE_EQ(big.deviation(60 * kMin, 1000).scale, 20) << "2 % of the centre";
}

TEST(Baseline, ALevelShiftBecomesNormalAfterHalfTheRing) {
  BaselineOptions o;
  o.ring = 60;
  Baseline b(o);
  feed(b, 0, 60, 20);
  int64_t t = 60 * kMin;
  int anomalous_minutes = 0;
  for (int i = 0; i < 60; ++i, t += kMin) {
    if (score_of(b.deviation(t, 90).z) >= kAnomalousScore) ++anomalous_minutes;
    b.add(t, 90 + (i % 2 ? 1 : -1));
  }
  EXPECT_GE(anomalous_minutes, 29);
  EXPECT_LE(anomalous_minutes, 31);
}

TEST(Baseline, TheSameHourOnEarlierDaysIsNotAnomalous) {
  BaselineOptions o;
  o.ring = 60;
  Baseline b(o);
  // Two days: 20 all day, 80 from 12:00 to 13:00.
  int64_t t = 0;
  for (int day = 0; day < 2; ++day) {
    for (int m = 0; m < 24 * 60; ++m, t += kMin) b.add(t, (m >= 12 * 60 && m < 13 * 60 ? 80 : 20) + (m % 2));
  }
  // Day 3 at 11:59 the recent hour says 20; at 12:00 the busy hour returns.
  for (int m = 0; m < 12 * 60; ++m, t += kMin) b.add(t, 20 + (m % 2));
  EXPECT_LT(b.deviation(t, 80).z, 1) << "12:00 on the earlier days looked like this";
  EXPECT_GT(b.deviation(t + 2 * kHour, 80).z, 5) << "14:00 never did";
  Baseline fresh(o);
  feed(fresh, t - 60 * kMin, 60, 20);
  EXPECT_GT(fresh.deviation(t, 80).z, 5) << "without earlier days only the recent hour counts";
}

TEST(Baseline, NonFiniteValuesAreIgnored) {
  Baseline b(BaselineOptions{});
  feed(b, 0, 40);
  b.add(40 * kMin, std::nan(""));
  EXPECT_EQ(b.count(), 40);
  EXPECT_FALSE(b.deviation(41 * kMin, std::nan("")).ready);
}

}  // namespace
}  // namespace llmon::anomaly
