#include <gtest/gtest.h>

#include <string>

#include "collector/builtin.h"
#include "collector/options.h"
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

TEST(VmstatCollector, FixtureValuesWithDefaultFields) {
  auto c = make_vmstat(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_vmstat_"), 7u);
  EXPECT_EQ(value_of(snap, "node_vmstat_pgpgin", {}), 528374612.0);
  EXPECT_EQ(value_of(snap, "node_vmstat_pgpgout", {}), 1937261044.0);
  EXPECT_EQ(value_of(snap, "node_vmstat_pswpin", {}), 2048);
  EXPECT_EQ(value_of(snap, "node_vmstat_pswpout", {}), 8192);
  EXPECT_EQ(value_of(snap, "node_vmstat_pgfault", {}), 9837162535.0);
  EXPECT_EQ(value_of(snap, "node_vmstat_pgmajfault", {}), 183744);
  EXPECT_EQ(value_of(snap, "node_vmstat_oom_kill", {}), 2);
  EXPECT_EQ(snap.find("node_vmstat_nr_free_pages"), nullptr);
  const model::Family* f = snap.find("node_vmstat_pgfault");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kUntyped);
  EXPECT_EQ(f->help, "/proc/vmstat information field pgfault.");
  // Steady state: a second cycle gives the same.
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(families_with_prefix(snap, "node_vmstat_"), 7u);
}

TEST(VmstatCollector, FieldsOptionIsAnUnanchoredRegex) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorVmstatFields, "free_pages");
  auto c = make_vmstat(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_vmstat_nr_free_pages", {}), 1369396);
  EXPECT_EQ(series_count(snap, "node_vmstat_pgfault"), 0u);
}

TEST(VmstatCollector, ChangedFieldListIsFollowed) {
  TempFixture t;
  t.write("proc/vmstat", "nr_free_pages 1\npgfault 10\n");
  auto c = make_vmstat(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(families_with_prefix(snap, "node_vmstat_"), 1u);
  t.write("proc/vmstat", "pgmajfault 3\npgfault 11\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_vmstat_pgmajfault", {}), 3);
  EXPECT_EQ(value_of(snap, "node_vmstat_pgfault", {}), 11);
  EXPECT_EQ(families_with_prefix(snap, "node_vmstat_"), 2u);
}

TEST(VmstatCollector, BadValueFailsAfterTheEarlierFields) {
  TempFixture t;
  t.write("proc/vmstat", "pgpgin 1\npgfoo 1x\npgfault 2\n");
  auto c = make_vmstat(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("vmstat:2:"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_vmstat_pgpgin", {}), 1);
  EXPECT_EQ(series_count(snap, "node_vmstat_pgfault"), 0u);
}

TEST(VmstatCollector, EmptyAndMissingFile) {
  TempFixture t;
  t.write("proc/vmstat", "");
  auto c = make_vmstat(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(families_with_prefix(snap, "node_vmstat_"), 0u);
  t.remove("proc/vmstat");
  auto c2 = make_vmstat(t.context());
  EXPECT_FALSE(collect_once(*c2, snap));
}

}  // namespace
}  // namespace llmon::collector
