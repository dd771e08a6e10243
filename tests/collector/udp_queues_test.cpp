#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(UdpQueuesCollector, FixtureValues) {
  auto c = make_udp_queues(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(series_count(snap, "node_udp_queues"), 4u);
  EXPECT_EQ(value_of(snap, "node_udp_queues", {{"ip", "v4"}, {"queue", "tx"}}), 0x340);
  EXPECT_EQ(value_of(snap, "node_udp_queues", {{"ip", "v4"}, {"queue", "rx"}}), 0x300 + 0xa80);
  EXPECT_EQ(value_of(snap, "node_udp_queues", {{"ip", "v6"}, {"queue", "tx"}}), 0);
  EXPECT_EQ(value_of(snap, "node_udp_queues", {{"ip", "v6"}, {"queue", "rx"}}), 0x200);
  const model::Family* f = snap.find("node_udp_queues");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "Number of allocated memory in the kernel for UDP datagrams in bytes.");
}

TEST(UdpQueuesCollector, OneMissingFileIsSkippedBothMissingIsNoData) {
  TempFixture t({"proc/net/udp6"});
  auto c = make_udp_queues(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_udp_queues"), 2u);
  EXPECT_EQ(value_of(snap, "node_udp_queues", {{"ip", "v6"}, {"queue", "rx"}}), 0x200);
  t.remove("proc/net/udp6");
  auto c2 = make_udp_queues(t.context());
  Status s = collect_once(*c2, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  EXPECT_EQ(series_count(snap, "node_udp_queues"), 0u);
}

TEST(UdpQueuesCollector, MalformedIpv6KeepsIpv4Series) {
  TempFixture t({"proc/net/udp"});
  t.write("proc/net/udp6", "header\n  1: bad\n");
  auto c = make_udp_queues(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("udp6:2:"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, "node_udp_queues"), 2u);
}

}  // namespace
}  // namespace llmon::collector
