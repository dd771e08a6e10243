#include <gtest/gtest.h>

#include <string>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::families_with_prefix;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(MeminfoCollector, FixtureValues) {
  auto c = make_meminfo(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_memory_"), 55u);  // one per line of the fixture
  EXPECT_EQ(value_of(snap, "node_memory_MemTotal_bytes", {}), 65842216.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_Active_anon_bytes", {}), 7021736.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_Inactive_file_bytes", {}), 18598828.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_VmallocTotal_bytes", {}), 34359738367.0 * 1024);
  EXPECT_EQ(value_of(snap, "node_memory_HugePages_Total", {}), 512);
  EXPECT_EQ(value_of(snap, "node_memory_HugePages_Rsvd", {}), 16);
  EXPECT_EQ(value_of(snap, "node_memory_Hugepagesize_bytes", {}), 2048.0 * 1024);
  const model::Family* f = snap.find("node_memory_MemTotal_bytes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "Memory information field MemTotal_bytes.");
  EXPECT_EQ(snap.find("node_memory_HugePages_Total")->type, model::MetricType::kGauge);
}

TEST(MeminfoCollector, TotalSuffixIsACounterAndLayoutChangesAreFollowed) {
  TempFixture t;
  t.write("proc/meminfo", "MemTotal: 10 kB\n");
  auto c = make_meminfo(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(families_with_prefix(snap, "node_memory_"), 1u);
  t.write("proc/meminfo", "MemTotal: 10 kB\nFoo_total: 3\nBar_total: 1 kB\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(families_with_prefix(snap, "node_memory_"), 3u);
  EXPECT_EQ(snap.find("node_memory_Foo_total")->type, model::MetricType::kCounter);
  EXPECT_EQ(value_of(snap, "node_memory_Foo_total", {}), 3);
  // "_bytes" is appended after the check, so this one stays a gauge.
  EXPECT_EQ(snap.find("node_memory_Bar_total_bytes")->type, model::MetricType::kGauge);
}

TEST(MeminfoCollector, DuplicateKeyKeepsTheLastValue) {
  TempFixture t;
  t.write("proc/meminfo", "MemFree: 1 kB\nMemFree: 2 kB\n");
  auto c = make_meminfo(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_memory_MemFree_bytes"), 1u);
  EXPECT_EQ(value_of(snap, "node_memory_MemFree_bytes", {}), 2048);
}

TEST(MeminfoCollector, InvalidNameFailsButKeepsTheRest) {
  TempFixture t;
  t.write("proc/meminfo", "MemFree: 1 kB\nWeird(x:  7\n");
  auto c = make_meminfo(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("Weird(x"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_memory_MemFree_bytes", {}), 1024);
}

TEST(MeminfoCollector, MalformedEmptyOrMissingFile) {
  TempFixture t;
  t.write("proc/meminfo", "MemTotal: 10 kB\nMemFree: 1x2 kB\n");
  auto c = make_meminfo(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("meminfo:2:"), std::string::npos) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_memory_"), 0u);  // node_exporter parses the whole file first
  t.write("proc/meminfo", "");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(families_with_prefix(snap, "node_memory_"), 0u);
  t.remove("proc/meminfo");
  auto c2 = make_meminfo(t.context());
  EXPECT_FALSE(collect_once(*c2, snap));
}

}  // namespace
}  // namespace llmon::collector
