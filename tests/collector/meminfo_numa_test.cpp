#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

TEST(MeminfoNumaCollector, FixtureValues) {
  auto c = make_meminfo_numa(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_memory_numa_MemTotal", {{"node", "0"}}), 32862208.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_numa_MemTotal", {{"node", "1"}}), 32980008.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_numa_Active_anon", {{"node", "1"}}), 9702212.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_numa_HugePages_Total", {{"node", "0"}}), 256);
  EXPECT_EQ(value_of(snap, "node_memory_numa_numa_hit_total", {{"node", "1"}}), 1811209452);
  expect_family(snap, "node_memory_numa_MemFree", model::MetricType::kGauge, "Memory information field MemFree.");
  expect_family(snap, "node_memory_numa_numa_miss_total", model::MetricType::kCounter,
                "Memory information field numa_miss_total.");
  EXPECT_EQ(testing::series_count(snap, "node_memory_numa_other_node_total"), 2u);
}

TEST(MeminfoNumaCollector, NoNodeDirectoriesIsEmptySuccess) {
  TempFixture fx({});
  auto c = make_meminfo_numa(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  EXPECT_TRUE(s) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(MeminfoNumaCollector, MissingOrBadFilesFail) {
  TempFixture fx({"sys/devices/system/node"});
  auto c = make_meminfo_numa(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  fx.write("sys/devices/system/node/node1/numastat", "numa_hit\n");
  Status s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(fx.path("sys/devices/system/node/node1/numastat") + ":1:"), std::string::npos)
      << s.message();
  fx.remove("sys/devices/system/node/node1/numastat");
  s = collect_once(*c, snap, 3000);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("couldn't get NUMA meminfo"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
