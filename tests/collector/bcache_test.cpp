#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector/options.h"
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

constexpr std::string_view kUuid = "5c0d8a3e-9f41-4b7e-a2d6-3e8f0c1b7a92";
const std::string kSet = "sys/fs/bcache/" + std::string(kUuid);

// Values as node_exporter 1.5 reports them on the fixture tree.
TEST(BcacheCollector, FixtureValues) {
  auto c = make_bcache(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_bcache_"), 26u);  // no priority_stats by default
  EXPECT_EQ(snap.find("node_bcache_priority_stats_unused_percent"), nullptr);
  expect_family(snap, "node_bcache_average_key_size_sectors", MetricType::kGauge,
                "Average data per key in the btree (sectors).");
  expect_family(snap, "node_bcache_cache_read_races_total", MetricType::kCounter,
                "Counts instances where while data was being read from the cache, the bucket was reused and "
                "invalidated - i.e. where the pointer was stale after the read completed.");
  expect_family(snap, "node_bcache_writeback_rate_proportional_term", MetricType::kGauge,
                "Current result of proportional controller, part of writeback rate");
  expect_family(snap, "node_bcache_bypassed_bytes_total", MetricType::kCounter,
                "Amount of IO (both reads and writes) that has bypassed the cache.");
  expect_family(snap, "node_bcache_io_errors", MetricType::kGauge,
                "Number of errors that have occurred, decayed by io_error_halflife.");
  const std::initializer_list<std::pair<std::string_view, std::string_view>> set = {{"uuid", kUuid}};
  EXPECT_EQ(value_of(snap, "node_bcache_average_key_size_sectors", set), 100);     // "0.1k"
  EXPECT_EQ(value_of(snap, "node_bcache_btree_cache_size_bytes", set), 40357888);  // "38.5M"
  EXPECT_EQ(value_of(snap, "node_bcache_cache_available_percent", set), 87);
  EXPECT_EQ(value_of(snap, "node_bcache_tree_depth", set), 1);
  EXPECT_EQ(value_of(snap, "node_bcache_btree_nodes", set), 74);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_bcache_btree_read_average_duration_seconds", set), 1.305e-06);
  EXPECT_EQ(value_of(snap, "node_bcache_cache_read_races_total", set), 3);
  const std::initializer_list<std::pair<std::string_view, std::string_view>> bdev = {{"uuid", kUuid},
                                                                                     {"backing_device", "bdev0"}};
  EXPECT_EQ(value_of(snap, "node_bcache_dirty_data_bytes", bdev), 1598029824);  // "1.5G"
  EXPECT_EQ(value_of(snap, "node_bcache_dirty_target_bytes", bdev), 10502537216.0);
  EXPECT_EQ(value_of(snap, "node_bcache_writeback_rate", bdev), 2199552);                       // "2.1M/sec"
  EXPECT_EQ(value_of(snap, "node_bcache_writeback_rate_proportional_term", bdev), -222707712);  // "-212.4M"
  EXPECT_EQ(value_of(snap, "node_bcache_writeback_change", bdev), 0);
  EXPECT_EQ(value_of(snap, "node_bcache_bypassed_bytes_total", bdev), 13199474688.0);  // "12.3G"
  EXPECT_EQ(value_of(snap, "node_bcache_cache_hits_total", bdev), 8924517);
  EXPECT_EQ(value_of(snap, "node_bcache_cache_readaheads_total", bdev), 0);
  const std::initializer_list<std::pair<std::string_view, std::string_view>> cache = {{"uuid", kUuid},
                                                                                      {"cache_device", "cache0"}};
  EXPECT_EQ(value_of(snap, "node_bcache_metadata_written_bytes_total", cache), 2776629248.0);
  EXPECT_EQ(value_of(snap, "node_bcache_written_bytes_total", cache), 154383941632.0);
  EXPECT_EQ(series_count(snap, "node_bcache_cache_hits_total"), 1u);
}

TEST(BcacheCollector, PriorityStatsWhenAskedFor) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorBcachePriorityStats, "true");
  auto c = make_bcache(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  expect_family(snap, "node_bcache_priority_stats_unused_percent", MetricType::kGauge,
                "The percentage of the cache that doesn't contain any data.");
  expect_family(snap, "node_bcache_priority_stats_metadata_percent", MetricType::kGauge, "Bcache's metadata overhead.");
  EXPECT_EQ(value_of(snap, "node_bcache_priority_stats_unused_percent", {{"uuid", kUuid}, {"cache_device", "cache0"}}),
            13);
  EXPECT_EQ(
      value_of(snap, "node_bcache_priority_stats_metadata_percent", {{"uuid", kUuid}, {"cache_device", "cache0"}}), 1);
}

TEST(BcacheCollector, NoBcacheIsSuccessWithoutSeries) {
  TempFixture fx({});
  auto c = make_bcache(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_TRUE(s) << s.message();  // node_exporter 1.5: success 1, its glob finds nothing
  EXPECT_EQ(snap.series_count(), 0u);
  fx.write("sys/fs/bcache/register", "");  // the module loaded, no cache set
  s = collect_once(*c, snap);
  EXPECT_TRUE(s) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(BcacheCollector, MissingValueFilesReadZeroAndValuesAreReadEveryCycle) {
  TempFixture fx({"sys/fs/bcache"});
  auto c = make_bcache(fx.context());
  model::Snapshot snap;
  fx.remove(kSet + "/tree_depth");
  fx.remove(kSet + "/internal");
  fx.remove(kSet + "/stats_five_minute");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_bcache_tree_depth", {{"uuid", kUuid}}), 0);
  EXPECT_EQ(value_of(snap, "node_bcache_btree_nodes", {{"uuid", kUuid}}), 0);
  fx.write(kSet + "/bdev0/dirty_data", "3.2M\n");
  fx.write(kSet + "/bdev0/stats_total/cache_hits", "8924600\n");
  // A second backing device: its own counters (not the cache set's).
  fx.write(kSet + "/bdev1/dirty_data", "0.0k\n");
  fx.write(kSet + "/bdev1/writeback_rate_debug", "rate:\t\t0.5k/sec\n");
  fx.write(kSet + "/bdev1/stats_total/cache_hits", "77\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_bcache_dirty_data_bytes", {{"uuid", kUuid}, {"backing_device", "bdev0"}}),
            3350528);  // 3 + 2/10.24 MiB
  EXPECT_EQ(value_of(snap, "node_bcache_cache_hits_total", {{"uuid", kUuid}, {"backing_device", "bdev0"}}), 8924600);
  EXPECT_EQ(value_of(snap, "node_bcache_cache_hits_total", {{"uuid", kUuid}, {"backing_device", "bdev1"}}), 77);
  EXPECT_EQ(value_of(snap, "node_bcache_writeback_rate", {{"uuid", kUuid}, {"backing_device", "bdev1"}}), 500);
  EXPECT_EQ(value_of(snap, "node_bcache_cache_misses_total", {{"uuid", kUuid}, {"backing_device", "bdev1"}}), 0);
}

TEST(BcacheCollector, BadInputFailsNamingTheFile) {
  struct Case {
    std::string rel, text;  // rel "" removes writeback_rate_debug
    std::string named;
  } cases[] = {
      {kSet + "/congested", "abc\n", kSet + "/congested"},
      {kSet + "/congested", "", kSet + "/congested: empty file"},  // node_exporter 1.5 panics
      {kSet + "/stats_five_minute/cache_hits", "x1\n", kSet + "/stats_five_minute/cache_hits"},
      {kSet + "/bdev0/writeback_rate_debug", "rate:\t\tfast/sec\n", kSet + "/bdev0/writeback_rate_debug:1"},
      {"", "", kSet + "/bdev0/writeback_rate_debug"},
  };
  for (const auto& k : cases) {
    TempFixture fx({"sys/fs/bcache"});
    if (k.rel.empty())
      fx.remove(kSet + "/bdev0/writeback_rate_debug");
    else
      fx.write(k.rel, k.text);
    auto c = make_bcache(fx.context());
    model::Snapshot snap;
    Status s = collect_once(*c, snap);
    ASSERT_FALSE(s) << k.rel;
    EXPECT_FALSE(s.is_no_data());
    EXPECT_NE(s.message().find(fx.path(k.named)), std::string::npos) << s.message();
    EXPECT_EQ(snap.series_count(), 0u);
  }
  // priority_stats is required once asked for.
  TempFixture fx({"sys/fs/bcache"});
  fx.remove(kSet + "/cache0/priority_stats");
  auto ctx = fx.context();
  ctx.set_option(flag::kCollectorBcachePriorityStats, "true");
  auto c = make_bcache(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path(kSet + "/cache0/priority_stats")), std::string::npos) << s.message();
  ASSERT_TRUE(collect_once(*make_bcache(fx.context()), snap));  // not read by default
}

}  // namespace
}  // namespace llmon::collector
