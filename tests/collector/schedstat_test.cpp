#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(SchedstatCollector, FixtureValues) {
  auto c = make_schedstat(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(series_count(snap, "node_schedstat_running_seconds_total"), 4u);
  EXPECT_EQ(value_of(snap, "node_schedstat_running_seconds_total", {{"cpu", "0"}}), 3315018763542 / 1e9);
  EXPECT_EQ(value_of(snap, "node_schedstat_waiting_seconds_total", {{"cpu", "3"}}), 279854672023 / 1e9);
  EXPECT_EQ(value_of(snap, "node_schedstat_timeslices_total", {{"cpu", "2"}}), 39684205);
  const model::Family* f = snap.find("node_schedstat_waiting_seconds_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kCounter);
  EXPECT_EQ(f->label_names, std::vector<std::string>{"cpu"});
  EXPECT_EQ(f->help, "Number of seconds spent by processing waiting for this CPU.");
  EXPECT_EQ(snap.find("node_schedstat_running_seconds_total")->help, "Number of seconds CPU spent running a process.");
  EXPECT_EQ(snap.find("node_schedstat_timeslices_total")->help, "Number of timeslices executed by CPU.");
}

TEST(SchedstatCollector, MissingFileIsNoDataAndBadLineAnError) {
  TempFixture fx({});
  auto c = make_schedstat(fx.context());
  model::Snapshot snap;
  Status missing = collect_once(*c, snap);
  EXPECT_FALSE(missing);
  EXPECT_TRUE(missing.is_no_data()) << missing.message();
  EXPECT_EQ(snap.series_count(), 0u);

  fx.write("proc/schedstat", "version 15\ncpu0 0 0 0 0 0 0 1 2 99999999999999999999\n");
  auto c2 = make_schedstat(fx.context());
  Status s = collect_once(*c2, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find(fx.path("proc/schedstat") + ":2:"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
