// The Scorer: per-series baselines keyed by metric and labels, the learning
// cadence, anomalous stretches, the node rate, bounds; and the series the
// agent stores from it.
#include "anomaly/scorer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "anomaly/curated.h"
#include "anomaly/series.h"

namespace llmon::anomaly {
namespace {

constexpr int64_t kMin = 60'000;

model::Labels gpu(std::string g) {
  return *model::Labels::make({{"gpu", std::move(g)}, {"job", "llmon"}});
}

// Two GPUs steady at 90 % (wobbling by 1) for an hour, observed every 15 s.
Scorer warmed(int64_t& t) {
  Scorer s;
  for (t = 0; t < 60 * kMin; t += 15'000) {
    double w = (t / kMin) % 2 ? 1 : -1;
    s.observe("gpu_util", gpu("0"), 5, t, 90 + w);
    s.observe("gpu_util", gpu("1"), 5, t, 90 + w);
  }
  return s;
}

TEST(Scorer, LearnsOneFeatureAMinuteAndScoresEveryObservation) {
  Scorer s;
  for (int64_t t = 0; t < 29 * kMin + 1; t += 15'000) s.observe("gpu_util", gpu("0"), 5, t, 90);
  EXPECT_EQ(s.ready_count(), 0u) << "29 minutes x 4 observations are 29 features, not 116";
  EXPECT_EQ(s.node_rate(), -1);
  s.observe("gpu_util", gpu("0"), 5, 30 * kMin, 90);
  s.observe("gpu_util", gpu("0"), 5, 30 * kMin + 15'000, 90);
  EXPECT_EQ(s.ready_count(), 1u);
}

TEST(Scorer, AnomalousStretchAndNodeRate) {
  int64_t t;
  Scorer s = warmed(t);
  EXPECT_EQ(s.node_rate(), 0);
  EXPECT_TRUE(s.anomalies(0).empty());
  s.observe("gpu_util", gpu("0"), 5, t, 30);  // GPU 0 drops
  s.observe("gpu_util", gpu("1"), 5, t, 90);
  EXPECT_DOUBLE_EQ(s.node_rate(), 0.5);
  auto a = s.anomalies(t - 15 * kMin);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]->labels.get("gpu"), "0");
  EXPECT_EQ(a[0]->since_ms, t);
  EXPECT_NEAR(a[0]->score, 60.0 / 5 / 14, 1e-9) << "60 points off at the 5-point floor: z 12";
  int64_t later = t + 30 * kMin;
  s.observe("gpu_util", gpu("0"), 5, later, 90);
  s.observe("gpu_util", gpu("1"), 5, later, 90);
  EXPECT_EQ(s.node_rate(), 0);
  EXPECT_EQ(s.anomalies(t - 15 * kMin).size(), 1u) << "anomalous within the window still cites";
  EXPECT_TRUE(s.anomalies(t + 1).empty());
}

TEST(Scorer, BoundedAndForgetful) {
  ScorerOptions o;
  o.max_series = 2;
  Scorer s(o);
  s.observe("gpu_util", gpu("0"), 5, 0, 1);
  s.observe("gpu_util", gpu("1"), 5, 0, 1);
  s.observe("gpu_util", gpu("2"), 5, 0, 1);
  EXPECT_EQ(s.series().size(), 2u);
  s.observe("gpu_util", gpu("0"), 5, 2 * 3'600'000, 1);
  auto gone = s.forget(2 * 3'600'000);
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].labels.get("gpu"), "1");
}

struct Recorder final : storage::Appender {
  std::vector<std::pair<std::string, double>> rows;
  Expected<storage::SeriesRef> append(storage::SeriesRef, const model::Labels& l, int64_t, double v) override {
    rows.push_back({l.to_string(), v});
    return storage::SeriesRef{1};
  }
  Status commit() override { return Status::ok(); }
  Status rollback() override { return Status::ok(); }
};

TEST(AnomalySeries, ReadyScoreAndNodeRateThenStale) {
  Scorer s;
  AnomalySeries w({{"instance", "n1:8747"}, {"job", "llmon"}});
  s.observe("temp", gpu("3"), 1.5, 0, 60);
  Recorder cold;
  ASSERT_TRUE(w.write(s, cold, 0).is_ok());
  ASSERT_EQ(cold.rows.size(), 1u) << "cold start: readiness 0, no score, no node rate";
  EXPECT_EQ(cold.rows[0].first,
            R"({__name__="llmon_anomaly_baseline_ready", gpu="3", instance="n1:8747", job="llmon", metric="temp"})");
  EXPECT_EQ(cold.rows[0].second, 0);
  int64_t t = kMin;
  for (; t <= 40 * kMin; t += kMin) s.observe("temp", gpu("3"), 1.5, t, 60);
  Recorder ready;
  ASSERT_TRUE(w.write(s, ready, t - kMin).is_ok());
  ASSERT_EQ(ready.rows.size(), 3u);
  EXPECT_EQ(ready.rows[1].first,
            R"({__name__="llmon_anomaly_score", gpu="3", instance="n1:8747", job="llmon", metric="temp"})");
  EXPECT_EQ(ready.rows[1].second, 0);
  EXPECT_EQ(ready.rows[2].first, R"({__name__="llmon_anomaly_node_rate", instance="n1:8747", job="llmon"})");
  Recorder gone;
  ASSERT_TRUE(w.write(Scorer{}, gone, t).is_ok());
  ASSERT_EQ(gone.rows.size(), 3u);
  for (const auto& r : gone.rows) EXPECT_TRUE(std::isnan(r.second));
}

TEST(Curated, SelectorIsPutIntoEveryFeature) {
  EXPECT_EQ(with_selector("rate(x{S,mode=\"idle\"}[1m]) + y{S}", "job=\"a\""),
            "rate(x{job=\"a\",mode=\"idle\"}[1m]) + y{job=\"a\"}");
  EXPECT_EQ(with_selector("rate(x{S,mode=\"idle\"}[1m]) + y{S}", ""), "rate(x{mode=\"idle\"}[1m]) + y{}");
  for (const auto& m : curated_metrics()) EXPECT_GT(m.abs_floor, 0) << m.name;
}

}  // namespace
}  // namespace llmon::anomaly
