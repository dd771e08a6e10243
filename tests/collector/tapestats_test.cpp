#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(TapestatsCollector, FixtureValues) {
  auto c = make_tapestats(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_tape_io_now", model::MetricType::kGauge,
                "The number of I/Os currently outstanding to this device.");
  expect_family(snap, "node_tape_write_time_seconds_total", model::MetricType::kCounter,
                "The amount of time spent waiting for write requests to complete.");
  EXPECT_EQ(series_count(snap, "node_tape_io_now"), 1u);  // st0 only, not nst0, st0a, ...
  EXPECT_EQ(value_of(snap, "node_tape_write_time_seconds_total", {{"device", "st0"}}), 4923006228851.0 * 0.000000001);
  EXPECT_EQ(value_of(snap, "node_tape_written_bytes_total", {{"device", "st0"}}), 2748779069440.0);
  EXPECT_EQ(value_of(snap, "node_tape_residual_total", {{"device", "st0"}}), 3);
}

TEST(TapestatsCollector, IgnoredDevicesAndNoData) {
  TempFixture fx({});
  auto ctx = fx.context();
  ctx.set_option(flag::kCollectorTapestatsIgnoredDevices, "^st1$");
  auto c = make_tapestats(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  fx.write("sys/class/scsi_tape/st0/stats/read_cnt", "7\n");
  fx.write("sys/class/scsi_tape/st1/stats/read_cnt", "9\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_tape_reads_completed_total", {{"device", "st0"}}), 7);
  EXPECT_EQ(value_of(snap, "node_tape_writes_completed_total", {{"device", "st0"}}), 0);  // absent file: 0
  EXPECT_EQ(series_count(snap, "node_tape_reads_completed_total"), 1u);
}

TEST(TapestatsCollector, BadValueFailsNamingTheFile) {
  TempFixture fx({});
  fx.write("sys/class/scsi_tape/st0/stats/read_cnt", "lots\n");
  auto c = make_tapestats(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find("st0/stats/read_cnt"), std::string::npos) << s.message();
  fx.remove("sys/class/scsi_tape/st0/stats");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
}

}  // namespace
}  // namespace llmon::collector
