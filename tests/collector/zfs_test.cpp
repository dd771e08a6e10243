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

TEST(ZfsCollector, FixtureValues) {
  auto c = make_zfs(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_zfs_arc_hits", MetricType::kUntyped, "kstat.zfs.misc.arcstats.hits");
  expect_family(snap, "node_zfs_fm_erpt_dropped", MetricType::kUntyped, "kstat.zfs.misc.fm.erpt-dropped");
  expect_family(snap, "node_zfs_zpool_nread", MetricType::kUntyped, "kstat.zfs.misc.io.nread");
  expect_family(snap, "node_zfs_zpool_dataset_writes", MetricType::kUntyped, "kstat.zfs.misc.objset.writes");
  expect_family(snap, "node_zfs_zpool_state", MetricType::kGauge, "kstat.zfs.misc.state");
  EXPECT_EQ(value_of(snap, "node_zfs_arc_c_max", {}), 16777216000.0);
  EXPECT_EQ(snap.find("node_zfs_arc_memory_available_bytes"), nullptr);  // int64 kstat
  EXPECT_EQ(value_of(snap, "node_zfs_zil_zil_commit_count", {}), 1382203);
  EXPECT_EQ(value_of(snap, "node_zfs_zfetch_hits", {}), 30211093);
  EXPECT_EQ(value_of(snap, "node_zfs_zpool_nwritten", {{"zpool", "rpool"}}), 1021934264320.0);
  EXPECT_EQ(value_of(snap, "node_zfs_zpool_dataset_nread", {{"zpool", "rpool"}, {"dataset", "rpool/home"}}),
            8811922432.0);
  EXPECT_EQ(series_count(snap, "node_zfs_zpool_state"), 6u);
  EXPECT_EQ(value_of(snap, "node_zfs_zpool_state", {{"zpool", "rpool"}, {"state", "online"}}), 1);
  EXPECT_EQ(value_of(snap, "node_zfs_zpool_state", {{"zpool", "rpool"}, {"state", "degraded"}}), 0);
  EXPECT_EQ(families_with_prefix(snap, "node_zfs_"), 169u);  // as node_exporter 1.5 on the fixture
}

TEST(ZfsCollector, NoModuleIsNoDataAndBadKstatAnError) {
  TempFixture fx({});
  auto c = make_zfs(fx.context());
  model::Snapshot snap;
  Status missing = collect_once(*c, snap);
  EXPECT_TRUE(missing.is_no_data()) << missing.message();

  fx.write("proc/spl/kstat/zfs/zil", "19 1 0x01\nname type data\nzil_commit_count 4 many\n");
  Status s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), fx.path("proc/spl/kstat/zfs/zil") + ":3: zil_commit_count: not an unsigned integer: \"many\"");

  fx.write("proc/spl/kstat/zfs/zil", "19 1 0x01\nname type data\nzil_commit_count 4 5\n");
  fx.write("proc/spl/kstat/zfs/tank/state", "SUSPENDED\n");
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  EXPECT_EQ(value_of(snap, "node_zfs_zil_zil_commit_count", {}), 5);
  EXPECT_EQ(value_of(snap, "node_zfs_zpool_state", {{"zpool", "tank"}, {"state", "online"}}), 0);
}

}  // namespace
}  // namespace llmon::collector
