#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "no_data_check.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(MdadmCollector, FixtureValues) {
  auto c = make_mdadm(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_md_state", model::MetricType::kGauge, "Indicates the state of md-device.");
  expect_family(snap, "node_md_disks", model::MetricType::kGauge, "Number of active/failed/spare disks of device.");
  expect_family(snap, "node_md_disks_required", model::MetricType::kGauge, "Total number of disks of device.");
  expect_family(snap, "node_md_blocks", model::MetricType::kGauge, "Total number of blocks on device.");
  expect_family(snap, "node_md_blocks_synced", model::MetricType::kGauge, "Number of blocks synced on device.");
  EXPECT_EQ(series_count(snap, "node_md_state"), 8u * 5);
  EXPECT_EQ(series_count(snap, "node_md_disks"), 8u * 3);
  EXPECT_EQ(value_of(snap, "node_md_state", {{"device", "md2"}, {"state", "resync"}}), 1);
  EXPECT_EQ(value_of(snap, "node_md_state", {{"device", "md2"}, {"state", "active"}}), 0);
  EXPECT_EQ(value_of(snap, "node_md_state", {{"device", "md3"}, {"state", "recovering"}}), 1);
  EXPECT_EQ(value_of(snap, "node_md_state", {{"device", "md5"}, {"state", "check"}}), 1);
  EXPECT_EQ(value_of(snap, "node_md_state", {{"device", "md127"}, {"state", "inactive"}}), 1);
  EXPECT_EQ(value_of(snap, "node_md_disks", {{"device", "md3"}, {"state", "failed"}}), 1);
  EXPECT_EQ(value_of(snap, "node_md_disks", {{"device", "md3"}, {"state", "spare"}}), 1);
  EXPECT_EQ(value_of(snap, "node_md_disks", {{"device", "md3"}, {"state", "active"}}), 3);
  EXPECT_EQ(value_of(snap, "node_md_disks_required", {{"device", "md2"}}), 8);
  EXPECT_EQ(value_of(snap, "node_md_blocks", {{"device", "md2"}}), 70312519680.0);
  EXPECT_EQ(value_of(snap, "node_md_blocks_synced", {{"device", "md2"}}), 3210524672.0);
  EXPECT_EQ(value_of(snap, "node_md_blocks_synced", {{"device", "md6"}}), 0);
}

TEST(MdadmCollector, NoMdstatIsNoData) {
  testing::expect_no_data_without_files(make_mdadm);
}

TEST(MdadmCollector, ResyncProgressIsReadEveryCycleAndBadInputFails) {
  TempFixture fx({"proc/mdstat"});
  auto c = make_mdadm(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  fx.write("proc/mdstat",
           "Personalities : [raid1]\nmd0 : active raid1 sdb1[1] sda1[0]\n"
           "      1046528 blocks super 1.2 [2/2] [UU]\n"
           "      [=========>...........]  resync = 47.3% (495104/1046528) finish=0.1min speed=99020K/sec\n\n"
           "unused devices: <none>\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(series_count(snap, "node_md_blocks"), 1u);
  EXPECT_EQ(value_of(snap, "node_md_blocks_synced", {{"device", "md0"}}), 495104);
  fx.write("proc/mdstat", "md0 : active raid1 sdb1[1] sda1[0]\n      lots of blocks\n\n\n");
  Status s = collect_once(*c, snap, 3000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find(fx.path("proc/mdstat") + ":2:"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
