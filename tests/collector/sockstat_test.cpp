#include <gtest/gtest.h>
#include <unistd.h>

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

TEST(SockstatCollector, FixtureValues) {
  auto c = make_sockstat(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_sockstat_sockets_used", {}), 1287);
  EXPECT_EQ(value_of(snap, "node_sockstat_TCP_inuse", {}), 214);
  EXPECT_EQ(value_of(snap, "node_sockstat_TCP_tw", {}), 97);
  EXPECT_EQ(value_of(snap, "node_sockstat_TCP_mem", {}), 186);
  EXPECT_EQ(value_of(snap, "node_sockstat_TCP_mem_bytes", {}), 186.0 * ::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(value_of(snap, "node_sockstat_UDP_mem_bytes", {}), 34.0 * ::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(value_of(snap, "node_sockstat_FRAG_memory", {}), 4096);
  EXPECT_EQ(value_of(snap, "node_sockstat_TCP6_inuse", {}), 38);
  EXPECT_EQ(value_of(snap, "node_sockstat_FRAG6_memory", {}), 0);
  EXPECT_EQ(snap.find("node_sockstat_UDPLITE_mem"), nullptr);
  EXPECT_EQ(snap.find("node_sockstat_TCP6_mem_bytes"), nullptr);
  const model::Family* f = snap.find("node_sockstat_TCP_alloc");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "Number of TCP sockets in state alloc.");
  EXPECT_EQ(families_with_prefix(snap, "node_sockstat_"), 20u);
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(families_with_prefix(snap, "node_sockstat_"), 20u);
}

TEST(SockstatCollector, MissingFilesAreSkipped) {
  TempFixture t({"proc/net/sockstat"});
  auto c = make_sockstat(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_sockstat_TCP_inuse", {}), 214);
  EXPECT_EQ(snap.find("node_sockstat_TCP6_inuse"), nullptr);
  t.remove("proc/net/sockstat");
  auto c2 = make_sockstat(t.context());
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_EQ(families_with_prefix(snap, "node_sockstat_"), 0u);
}

TEST(SockstatCollector, MalformedFileFailsWithoutSeries) {
  TempFixture t({"proc/net/sockstat"});
  t.write("proc/net/sockstat6", "TCP6: inuse\n");
  auto c = make_sockstat(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("sockstat6:1:"), std::string::npos) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_sockstat_"), 0u);
}

}  // namespace
}  // namespace llmon::collector
