#include "model/snapshot_builder.h"

#include <gtest/gtest.h>

namespace llmon::model {
namespace {

void fill(Snapshot& s, int64_t ts, double v) {
  SnapshotBuilder b(s, ts);
  auto f = b.family("b_metric", "B.", MetricType::kGauge, {"device"});
  f.add({"eth0"}, v);
  f.add({"lo"}, v + 1);
  b.family("a_metric", "A.", MetricType::kCounter).add(v * 2);
  b.finish();
}

TEST(SnapshotBuilder, OrdersByNameAndFinds) {
  Snapshot s;
  fill(s, 1000, 1);
  ASSERT_EQ(s.families.size(), 2u);
  EXPECT_EQ(s.families[s.order[0]].name, "a_metric");
  EXPECT_EQ(s.families[s.order[1]].name, "b_metric");
  ASSERT_NE(s.find_series("b_metric", {{"device", "lo"}}), nullptr);
  EXPECT_EQ(s.find_series("b_metric", {{"device", "lo"}})->value, 2);
  EXPECT_EQ(s.find_series("b_metric", {{"device", "nope"}}), nullptr);
  EXPECT_EQ(s.series_count(), 3u);
}

TEST(SnapshotBuilder, RecyclesStorageInPlace) {
  Snapshot s;
  fill(s, 1000, 1);
  const std::string* eth0 = &s.families[0].series[0].label_values[0];
  const char* eth0_data = eth0->data();
  fill(s, 2000, 5);
  EXPECT_EQ(s.timestamp_ms, 2000);
  EXPECT_EQ(&s.families[0].series[0].label_values[0], eth0);
  EXPECT_EQ(s.families[0].series[0].label_values[0].data(), eth0_data);
  EXPECT_EQ(s.find_series("a_metric", {})->value, 10);
}

TEST(SnapshotBuilder, ShrinksWhenSeriesDisappear) {
  Snapshot s;
  fill(s, 1000, 1);
  SnapshotBuilder b(s, 2000);
  b.family("b_metric", "B.", MetricType::kGauge, {"device"}).add({"eth0"}, 7);
  b.finish();
  ASSERT_EQ(s.families.size(), 1u);
  EXPECT_EQ(s.series_count(), 1u);
  EXPECT_EQ(s.order.size(), 1u);
}

}  // namespace
}  // namespace llmon::model
