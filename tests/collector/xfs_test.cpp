#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::families_with_prefix;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(XfsCollector, FixtureValuesPerDevice) {
  auto c = make_xfs(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_xfs_"), 39u);
  EXPECT_EQ(series_count(snap, "node_xfs_read_calls_total"), 2u);
  expect_family(snap, "node_xfs_read_calls_total", MetricType::kCounter,
                "Number of read(2) system calls made to files in a filesystem.");
  expect_family(snap, "node_xfs_inode_operation_duplicates_total", MetricType::kCounter,
                "Number of times the OS tried to add a missing XFS inode to the inode cache, but found it had already "
                "been added by another process.");
  // "rw <write calls> <read calls>"
  EXPECT_EQ(value_of(snap, "node_xfs_read_calls_total", {{"device", "nvme0n1p1"}}), 168201043);
  EXPECT_EQ(value_of(snap, "node_xfs_write_calls_total", {{"device", "nvme0n1p1"}}), 418330597);
  EXPECT_EQ(value_of(snap, "node_xfs_extent_allocation_blocks_allocated_total", {{"device", "dm-2"}}), 7251394);
  EXPECT_EQ(value_of(snap, "node_xfs_inode_operation_attribute_changes_total", {{"device", "dm-2"}}), 40117);
  EXPECT_EQ(value_of(snap, "node_xfs_vnode_remove_total", {{"device", "dm-2"}}), 129541);
  EXPECT_EQ(value_of(snap, "node_xfs_directory_operation_getdents_total", {{"device", "nvme0n1p1"}}), 117290541);
}

TEST(XfsCollector, NoXfsIsSuccessWithoutSeriesAndBadFileAnError) {
  TempFixture fx({});
  auto c = make_xfs(fx.context());
  model::Snapshot snap;
  Status none = collect_once(*c, snap);
  EXPECT_TRUE(none) << none.message();
  EXPECT_EQ(snap.series_count(), 0u);

  fx.write("sys/fs/xfs/stats/stats", "rw 1 2\n");  // the global file: not a device
  fx.write("sys/fs/xfs/sdb1/stats/stats", "rw 1 2\nig 1 2\n");
  Status s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), fx.path("sys/fs/xfs/sdb1/stats/stats") + ":2: ig: expected 7 values, got 2");

  fx.write("sys/fs/xfs/sdb1/stats/stats", "rw 1 2\n");
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  EXPECT_EQ(series_count(snap, "node_xfs_read_calls_total"), 1u);
  EXPECT_EQ(value_of(snap, "node_xfs_read_calls_total", {{"device", "sdb1"}}), 2);
}

}  // namespace
}  // namespace llmon::collector
