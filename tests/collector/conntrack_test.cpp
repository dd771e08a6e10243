#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::families_with_prefix;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

TEST(ConntrackCollector, FixtureValues) {
  auto c = make_conntrack(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_nf_conntrack_"), 10u);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_entries", {}), 4213);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_entries_limit", {}), 262144);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_found", {}), 58);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_invalid", {}), 1866);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_ignore", {}), 255188);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_insert_failed", {}), 1);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_drop", {}), 4);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_early_drop", {}), 2);
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_stat_search_restart", {}), 59);
  const model::Family* f = snap.find("node_nf_conntrack_stat_drop");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "Number of packets dropped due to conntrack failure.");
}

TEST(ConntrackCollector, MissingFilesStopWithNoData) {
  TempFixture t({"proc/sys/net/netfilter/nf_conntrack_count"});
  auto c = make_conntrack(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);  // node_exporter: ErrNoData, success 0, entries kept
  EXPECT_TRUE(s.is_no_data()) << s.message();
  EXPECT_NE(s.message().find("is missing"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_nf_conntrack_entries", {}), 4213);
  EXPECT_EQ(families_with_prefix(snap, "node_nf_conntrack_"), 1u);
  TempFixture none({});
  auto c2 = make_conntrack(none.context());
  EXPECT_FALSE(collect_once(*c2, snap));
  EXPECT_EQ(families_with_prefix(snap, "node_nf_conntrack_"), 0u);
}

TEST(ConntrackCollector, MalformedFilesFail) {
  TempFixture t({"proc/sys/net/netfilter"});
  t.write("proc/net/stat/nf_conntrack", "entries\n1 2 3\n");
  auto c = make_conntrack(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("nf_conntrack:2:"), std::string::npos) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_nf_conntrack_"), 2u);
  t.write("proc/sys/net/netfilter/nf_conntrack_max", "lots\n");
  auto c2 = make_conntrack(t.context());
  s = collect_once(*c2, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("nf_conntrack_max"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::collector
