#include "procfs/net_snmp.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(NetStats, ParsesHeaderValuePairs) {
  std::vector<NetStatField> out;
  int section = 0;
  Status s = parse_net_stats(
      "Tcp: RtoAlgorithm MaxConn ActiveOpens\n"
      "Tcp: 1 -1 268995\n"
      "Udp: InDatagrams NoPorts\n"
      "Udp: 93 0\n",
      "/proc/net/snmp", section, out);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(section, 2);
  EXPECT_EQ(out[0].protocol, "Tcp");
  EXPECT_EQ(out[0].name, "RtoAlgorithm");
  EXPECT_EQ(out[0].value, "1");
  EXPECT_EQ(out[1].value, "-1");
  EXPECT_EQ(out[2].name, "ActiveOpens");
  EXPECT_EQ(out[2].value, "268995");
  EXPECT_EQ(out[2].section, 0);
  EXPECT_EQ(out[3].protocol, "Udp");
  EXPECT_EQ(out[4].name, "NoPorts");
  EXPECT_EQ(out[4].section, 1);
}

TEST(NetStats, SectionsContinueAcrossFiles) {
  std::vector<NetStatField> out;
  int section = 5;
  ASSERT_TRUE(parse_net_stats("IpExt: InOctets\nIpExt: 8437148780\n", "f", section, out));
  EXPECT_EQ(section, 6);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].section, 5);
  EXPECT_TRUE(parse_net_stats("", "f", section, out));
  EXPECT_EQ(out.size(), 1u);
}

TEST(NetStats, FieldCountMismatchNamesFileAndLine) {
  std::vector<NetStatField> out;
  int section = 0;
  Status s = parse_net_stats("TcpExt: A B\nTcpExt: 1 2\nIpExt: X\n", "/proc/net/netstat", section, out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("/proc/net/netstat:4:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("IpExt"), std::string::npos) << s.message();
  s = parse_net_stats("Tcp: A B\nTcp: 1 2 3\n", "f", section, out);
  EXPECT_FALSE(s);
  // A line without "Proto:" (node_exporter 1.5 panics on an empty one).
  s = parse_net_stats("\n\n", "f", section, out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("f:1:"), std::string::npos) << s.message();
}

TEST(Snmp6, SplitsProtocolAtTheFirstSix) {
  std::vector<NetStatField> out;
  int section = 3;
  parse_snmp6(
      "Ip6InReceives                   \t880231\n"
      "Ip6InOctets                     \t412337765\n"
      "Icmp6InMsgs                     \t3307\n"
      "Icmp6OutType135                 \t1330\n"
      "Udp6InDatagrams                 \t48211\n"
      "UdpLite6InErrors                \t0\n"
      "Ip6OutOctets                    \t398120442\n"
      "NoSixHere 1\n"
      "Lonely6\n",
      section, out);
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0].protocol, "Ip6");
  EXPECT_EQ(out[0].name, "InReceives");
  EXPECT_EQ(out[0].value, "880231");
  EXPECT_EQ(out[3].protocol, "Icmp6");
  EXPECT_EQ(out[3].name, "OutType135");
  EXPECT_EQ(out[5].protocol, "UdpLite6");
  EXPECT_EQ(out[5].name, "InErrors");
  // One section per protocol, wherever its lines are.
  EXPECT_EQ(out[0].section, 3);
  EXPECT_EQ(out[2].section, 4);
  EXPECT_EQ(out[4].section, 5);
  EXPECT_EQ(out[5].section, 6);
  EXPECT_EQ(out[6].section, 3);
  EXPECT_EQ(section, 7);
}

}  // namespace
}  // namespace llmon::procfs
