#include <gtest/gtest.h>

#include <string>

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

TEST(PressureCollector, FixtureValues) {
  auto c = make_pressure(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // node_exporter divides twice by 1000; 181720317 / 1e6 would differ in the last bit.
  EXPECT_EQ(value_of(snap, "node_pressure_cpu_waiting_seconds_total", {}), 181720317.0 / 1000.0 / 1000.0);
  EXPECT_EQ(value_of(snap, "node_pressure_cpu_waiting_seconds_total", {}), 181.72031700000002);
  EXPECT_EQ(value_of(snap, "node_pressure_io_waiting_seconds_total", {}), 40127841.0 / 1000.0 / 1000.0);
  EXPECT_EQ(value_of(snap, "node_pressure_io_stalled_seconds_total", {}), 28.876012);
  EXPECT_EQ(value_of(snap, "node_pressure_memory_waiting_seconds_total", {}), 3.127455);
  EXPECT_EQ(value_of(snap, "node_pressure_memory_stalled_seconds_total", {}), 2871033.0 / 1000.0 / 1000.0);
  EXPECT_EQ(snap.find("node_pressure_io_stalled_seconds_total")->type, model::MetricType::kCounter);
  // 1.5 reads neither cpu "full" nor /proc/pressure/irq.
  EXPECT_EQ(snap.find("node_pressure_cpu_stalled_seconds_total"), nullptr);
  EXPECT_EQ(snap.find("node_pressure_irq_stalled_seconds_total"), nullptr);
}

TEST(PressureCollector, NoPsiIsFailureWithoutSeries) {
  TempFixture t({"proc/stat"});
  auto c = make_pressure(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("CONFIG_PSI"), std::string::npos) << s.message();
  EXPECT_TRUE(s.is_no_data());
  EXPECT_EQ(series_count(snap, "node_pressure_cpu_waiting_seconds_total"), 0u);
}

TEST(PressureCollector, LaterResourceMissingKeepsEarlierSeries) {
  TempFixture t;
  t.remove("proc/pressure/io");
  auto c = make_pressure(t.context());
  model::Snapshot snap;
  ASSERT_FALSE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_pressure_cpu_waiting_seconds_total"), 1u);
  EXPECT_EQ(series_count(snap, "node_pressure_memory_waiting_seconds_total"), 0u);
}

TEST(PressureCollector, MissingOrMalformedLinesFail) {
  TempFixture t;
  t.write("proc/pressure/io", "some avg10=0.18 avg60=0.31 avg300=0.25 total=40127841\n");
  auto c = make_pressure(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("full"), std::string::npos) << s.message();
  t.write("proc/pressure/io", "");
  EXPECT_FALSE(collect_once(*c, snap, 2000));
  t.write("proc/pressure/io", "some avg10=0.18 avg60=0.31 total=1\nfull avg10=0 avg60=0 avg300=0 total=1\n");
  s = collect_once(*c, snap, 3000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("pressure/io:1:"), std::string::npos) << s.message();
  // An old kernel's cpu file without a "full" line is fine.
  TempFixture old;
  old.write("proc/pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=5000000\n");
  auto c2 = make_pressure(old.context());
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_EQ(value_of(snap, "node_pressure_cpu_waiting_seconds_total", {}), 5);
}

}  // namespace
}  // namespace llmon::collector
