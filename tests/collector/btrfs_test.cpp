#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

constexpr std::string_view kRoot = "7f2e4c1a-93b5-4d8e-a0c6-2b1f5e8d9a34";
constexpr std::string_view kRaid = "c3a1d9e0-5b7f-4e21-8f4d-6a0b2c9e7d15";

TEST(BtrfsCollector, FixtureValues) {
  auto c = make_btrfs(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_btrfs_info", MetricType::kGauge, "Filesystem information");
  expect_family(snap, "node_btrfs_global_rsv_size_bytes", MetricType::kGauge, "Size of global reserve.");
  expect_family(snap, "node_btrfs_reserved_bytes", MetricType::kGauge, "Amount of space reserved for a data type");
  expect_family(snap, "node_btrfs_used_bytes", MetricType::kGauge, "Amount of used space by a layout/data type");
  expect_family(snap, "node_btrfs_size_bytes", MetricType::kGauge, "Amount of space allocated for a layout/data type");
  expect_family(snap, "node_btrfs_allocation_ratio", MetricType::kGauge,
                "Data allocation ratio for a layout/data type");
  expect_family(snap, "node_btrfs_device_size_bytes", MetricType::kGauge,
                "Size of a device that is part of the filesystem.");
  EXPECT_EQ(series_count(snap, "node_btrfs_info"), 2u);  // not the global features/ directory
  EXPECT_EQ(value_of(snap, "node_btrfs_info", {{"uuid", kRoot}, {"label", "fedora_root"}}), 1);
  EXPECT_EQ(value_of(snap, "node_btrfs_info", {{"uuid", kRaid}, {"label", ""}}), 1);
  EXPECT_EQ(value_of(snap, "node_btrfs_global_rsv_size_bytes", {{"uuid", kRoot}}), 536870912);
  EXPECT_EQ(value_of(snap, "node_btrfs_reserved_bytes", {{"uuid", kRoot}, {"block_group_type", "metadata"}}), 196608);
  EXPECT_EQ(
      value_of(snap, "node_btrfs_used_bytes", {{"uuid", kRoot}, {"block_group_type", "data"}, {"mode", "single"}}),
      287432155136.0);
  EXPECT_EQ(
      value_of(snap, "node_btrfs_size_bytes", {{"uuid", kRaid}, {"block_group_type", "system"}, {"mode", "raid1"}}),
      33554432);
  EXPECT_EQ(value_of(snap, "node_btrfs_allocation_ratio",
                     {{"uuid", kRoot}, {"block_group_type", "metadata"}, {"mode", "dup"}}),
            2);
  EXPECT_EQ(value_of(snap, "node_btrfs_device_size_bytes", {{"uuid", kRaid}, {"device", "sdc"}}), 7814037168.0 * 512);
  EXPECT_EQ(series_count(snap, "node_btrfs_device_size_bytes"), 3u);
}

TEST(BtrfsCollector, NoBtrfsAndMissingSystemAllocation) {
  TempFixture fx({});
  auto c = make_btrfs(fx.context());
  model::Snapshot snap;
  Status none = collect_once(*c, snap);
  EXPECT_TRUE(none) << none.message();
  EXPECT_EQ(snap.series_count(), 0u);

  const std::string fs = "sys/fs/btrfs/0b1c2d3e-0000-4000-8000-000000000001";
  fx.write(fs + "/allocation/data/raid5/used_bytes", "300\n");
  fx.write(fs + "/allocation/data/raid5/total_bytes", "garbage\n");
  for (const char* d : {"sda", "sdb", "sdc"}) fx.write(fs + "/devices/" + d + "/size", "8\n");
  Status s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path(fs + "/allocation/system")), std::string::npos) << s.message();

  fx.write(fs + "/allocation/system/bytes_used", "0\n");
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  const std::string uuid = "0b1c2d3e-0000-4000-8000-000000000001";  // no metadata_uuid: the directory's name
  EXPECT_EQ(value_of(snap, "node_btrfs_used_bytes", {{"uuid", uuid}, {"block_group_type", "data"}, {"mode", "raid5"}}),
            300);
  EXPECT_EQ(value_of(snap, "node_btrfs_size_bytes", {{"uuid", uuid}, {"block_group_type", "data"}, {"mode", "raid5"}}),
            0);
  EXPECT_EQ(
      value_of(snap, "node_btrfs_allocation_ratio", {{"uuid", uuid}, {"block_group_type", "data"}, {"mode", "raid5"}}),
      1.5);
  EXPECT_EQ(value_of(snap, "node_btrfs_device_size_bytes", {{"uuid", uuid}, {"device", "sdb"}}), 4096);
  EXPECT_EQ(value_of(snap, "node_btrfs_reserved_bytes", {{"uuid", uuid}, {"block_group_type", "metadata"}}), 0);
}

}  // namespace
}  // namespace llmon::collector
