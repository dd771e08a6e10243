#include "procfs/net_ip_vs.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(IpvsStatsParser, HexTotals) {
  auto p = parse_ipvs_stats(
      "   Total Incoming Outgoing         Incoming         Outgoing\n"
      "   Conns  Packets  Packets            Bytes            Bytes\n"
      " 2A1F3C0 6E47A1B2        0     4B3C71D09F2E                0\n"
      "\n"
      " Conns/s   Pkts/s   Pkts/s          Bytes/s          Bytes/s\n"
      "      1A     2F31        0           2C7A1B                0\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->connections, 0x2A1F3C0u);
  EXPECT_EQ(p->incoming_packets, 0x6E47A1B2u);
  EXPECT_EQ(p->outgoing_packets, 0u);
  EXPECT_EQ(p->incoming_bytes, 0x4B3C71D09F2Eu);
  EXPECT_EQ(p->outgoing_bytes, 0u);
}

TEST(IpvsStatsParser, ShortOrBadTotalsNameTheFile) {
  EXPECT_EQ(parse_ipvs_stats("a\nb\n", "f").error(), "f: too short (no totals line)");
  EXPECT_EQ(parse_ipvs_stats("a\nb\n1 2 3 4\n", "f").error(), "f:3: expected 5 totals, got 4");
  EXPECT_EQ(parse_ipvs_stats("a\nb\n1 2 3 4 G\n", "f").error(), "f:3: total 5 is not hexadecimal: \"G\"");
}

TEST(IpvsBackendParser, ServicesAndRealServers) {
  auto p = parse_ipvs_backends(
      "IP Virtual Server version 1.2.1 (size=4096)\n"
      "Prot LocalAddress:Port Scheduler Flags\n"
      "  -> RemoteAddress:Port Forward Weight ActiveConn InActConn\n"
      "TCP  0A2A0064:01BB wlc persistent 300\n"
      "  -> 0A2A1017:01BB      Route   100    1842       311\n"
      "TCP  [2001:0db8:0042:0000:0000:0000:0000:0064]:01BB wlc\n"
      "  -> [2001:0db8:0042:0000:0000:0000:0000:1017]:01BB      Route   100    96         40\n"
      "UDP  [0000:0000:0000:0000:0000:ffff:0a2a:0065]:0035 rr\n"
      "  -> [0000:0000:0000:0000:0000:0000:0000:0001]:0035      Local   1      0          4\n"
      "FWM  00000010 wlc\n"
      "  -> 0A2A1031:0000      Route   10     35         210\n"
      "  -> 0A2A1032:0000      Route\n");  // too short: skipped
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 4u);
  const IpvsBackend& a = (*p)[0];
  EXPECT_EQ(a.proto, "TCP");
  EXPECT_EQ(a.local_address, "10.42.0.100");
  EXPECT_EQ(a.local_port, 443);
  EXPECT_EQ(a.remote_address, "10.42.16.23");
  EXPECT_EQ(a.weight, 100u);
  EXPECT_EQ(a.active_conn, 1842u);
  EXPECT_EQ(a.inact_conn, 311u);
  EXPECT_EQ((*p)[1].local_address, "2001:db8:42::64");
  EXPECT_EQ((*p)[1].remote_address, "2001:db8:42::1017");
  EXPECT_EQ((*p)[2].local_address, "10.42.0.101");  // IPv4-mapped, as Go prints it
  EXPECT_EQ((*p)[2].remote_address, "::1");
  EXPECT_EQ((*p)[2].local_port, 53);
  const IpvsBackend& m = (*p)[3];
  EXPECT_EQ(m.proto, "FWM");
  EXPECT_EQ(m.local_mark, "00000010");
  EXPECT_EQ(m.local_address, "");
  EXPECT_EQ(m.local_port, 0);
  EXPECT_EQ(m.remote_address, "10.42.16.49");
}

TEST(IpvsBackendParser, BadAddressesAndNumbersNameTheLine) {
  EXPECT_EQ(parse_ipvs_backends("TCP  0A2A0064:1BB wlc\n", "f").error(), "f:1: unexpected IP:Port \"0A2A0064:1BB\"");
  EXPECT_EQ(parse_ipvs_backends("TCP  0A2A0Z64:01BB wlc\n", "f").error(), "f:1: invalid IPv4 address \"0A2A0Z64\"");
  EXPECT_EQ(parse_ipvs_backends("TCP  0A2A0064:01BB wlc\n  -> 0A2A1017:01BB Route 1 x 0\n", "f").error(),
            "f:2: field 5 is not a number: \"x\"");
}

}  // namespace
}  // namespace llmon::procfs
