#include "procfs/net_sockstat.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Sockstat, ParsesIpv4File) {
  auto s = parse_sockstat(
      "sockets: used 1287\n"
      "TCP: inuse 214 orphan 3 tw 97 alloc 412 mem 186\n"
      "UDP: inuse 21 mem 34\n"
      "UDPLITE: inuse 0\n"
      "FRAG: inuse 1 memory 4096\n");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->used, 1287);
  ASSERT_EQ(s->protocols.size(), 4u);
  const auto& tcp = s->protocols[0];
  EXPECT_EQ(tcp.name, "TCP");
  EXPECT_EQ(tcp.inuse, 214);
  EXPECT_EQ(tcp.orphan, 3);
  EXPECT_EQ(tcp.tw, 97);
  EXPECT_EQ(tcp.alloc, 412);
  EXPECT_EQ(tcp.mem, 186);
  EXPECT_FALSE(tcp.memory);
  EXPECT_EQ(s->protocols[1].mem, 34);
  EXPECT_FALSE(s->protocols[1].orphan);
  EXPECT_EQ(s->protocols[3].name, "FRAG");
  EXPECT_EQ(s->protocols[3].memory, 4096);
}

TEST(Sockstat, Ipv6FileHasNoUsedLine) {
  auto s = parse_sockstat("TCP6: inuse 38\nUDP6: inuse 12\n", "/proc/net/sockstat6");
  ASSERT_TRUE(s) << s.error();
  EXPECT_FALSE(s->used);
  ASSERT_EQ(s->protocols.size(), 2u);
  EXPECT_EQ(s->protocols[1].name, "UDP6");
  EXPECT_EQ(s->protocols[1].inuse, 12);
}

TEST(Sockstat, MalformedLinesNameFileAndLine) {
  auto odd = parse_sockstat("sockets: used 5\nTCP: inuse 3 orphan\n");
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().find("/proc/net/sockstat:2:"), std::string::npos) << odd.error();
  auto short_line = parse_sockstat("TCP: inuse\n");
  ASSERT_FALSE(short_line);
  EXPECT_NE(short_line.error().find(":1:"), std::string::npos) << short_line.error();
  auto bad = parse_sockstat("TCP: inuse x\n", "f");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("f:1: invalid value \"x\""), std::string::npos) << bad.error();
  EXPECT_FALSE(parse_sockstat("\n"));
  auto empty = parse_sockstat("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->protocols.empty());
}

}  // namespace
}  // namespace llmon::procfs
