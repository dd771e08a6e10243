#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::families_with_prefix;
using testing::fixture_context;
using testing::TempFixture;
using testing::value_of;

TEST(NetstatCollector, FixtureValuesWithDefaultFields) {
  auto c = make_netstat(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // node_exporter 1.5's page on the same fixture has these 40 families.
  EXPECT_EQ(families_with_prefix(snap, "node_netstat_"), 40u);
  EXPECT_EQ(value_of(snap, "node_netstat_TcpExt_ListenDrops", {}), 61);
  EXPECT_EQ(value_of(snap, "node_netstat_TcpExt_TCPTimeouts", {}), 2318);
  EXPECT_EQ(value_of(snap, "node_netstat_IpExt_InOctets", {}), 68210035552.0);
  EXPECT_EQ(value_of(snap, "node_netstat_Ip_Forwarding", {}), 1);
  EXPECT_EQ(value_of(snap, "node_netstat_Tcp_CurrEstab", {}), 214);
  EXPECT_EQ(value_of(snap, "node_netstat_Ip6_InOctets", {}), 412337765);
  EXPECT_EQ(value_of(snap, "node_netstat_Udp6_RcvbufErrors", {}), 4);
  EXPECT_EQ(value_of(snap, "node_netstat_UdpLite6_InErrors", {}), 0);
  EXPECT_EQ(snap.find("node_netstat_Tcp_MaxConn"), nullptr);
  EXPECT_EQ(snap.find("node_netstat_TcpExt_TCPOFOQueue"), nullptr);  // not in 1.5's default
  const model::Family* f = snap.find("node_netstat_Icmp6_InMsgs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kUntyped);
  EXPECT_EQ(f->help, "Statistic Icmp6InMsgs.");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(families_with_prefix(snap, "node_netstat_"), 40u);
}

TEST(NetstatCollector, FieldsOption) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorNetstatFields, "^Tcp_(MaxConn|RtoMax)$");
  auto c = make_netstat(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(families_with_prefix(snap, "node_netstat_"), 2u);
  EXPECT_EQ(value_of(snap, "node_netstat_Tcp_MaxConn", {}), -1);
  EXPECT_EQ(value_of(snap, "node_netstat_Tcp_RtoMax", {}), 120000);
}

TEST(NetstatCollector, LaterProtocolReplacesEarlierAndLayoutChangesAreFollowed) {
  TempFixture t({});
  t.write("proc/net/netstat", "TcpExt: ListenDrops ListenOverflows\nTcpExt: 1 2\n");
  t.write("proc/net/snmp", "Tcp: InErrs\nTcp: 3\n");
  auto ctx = t.context();
  ctx.set_option(flag::kCollectorNetstatFields, ".");
  auto c = make_netstat(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));  // snmp6 missing: IPv6 off
  EXPECT_EQ(families_with_prefix(snap, "node_netstat_"), 3u);
  // A second TcpExt section replaces the first one as a whole.
  t.write("proc/net/netstat", "TcpExt: ListenDrops ListenOverflows\nTcpExt: 1 2\nTcpExt: TW\nTcpExt: 9\n");
  t.write("proc/net/snmp6", "Ip6InOctets 7\nIp6InOctets 8\nIcmp6InMsgs 5\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(families_with_prefix(snap, "node_netstat_"), 4u);
  EXPECT_EQ(value_of(snap, "node_netstat_TcpExt_TW", {}), 9);
  EXPECT_EQ(snap.find("node_netstat_TcpExt_ListenDrops"), nullptr);
  EXPECT_EQ(value_of(snap, "node_netstat_Ip6_InOctets", {}), 8);
  EXPECT_EQ(value_of(snap, "node_netstat_Icmp6_InMsgs", {}), 5);
}

TEST(NetstatCollector, ErrorsNameTheFile) {
  TempFixture t({});
  auto c = make_netstat(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);  // netstat is required
  EXPECT_NE(s.message().find("couldn't get netstats"), std::string::npos) << s.message();
  t.write("proc/net/netstat", "TcpExt: ListenDrops\nTcpExt: 1\n");
  auto c2 = make_netstat(t.context());
  s = collect_once(*c2, snap);
  ASSERT_FALSE(s);  // so is snmp
  EXPECT_NE(s.message().find("couldn't get SNMP stats"), std::string::npos) << s.message();
  // Any bad value fails the collector, also one the fields option leaves out.
  t.write("proc/net/snmp", "Tcp: RtoMin\nTcp: 2x\n");
  auto c3 = make_netstat(t.context());
  s = collect_once(*c3, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("snmp: invalid value \"2x\" for Tcp RtoMin"), std::string::npos) << s.message();
  EXPECT_EQ(families_with_prefix(snap, "node_netstat_"), 0u);
}

}  // namespace
}  // namespace llmon::collector
