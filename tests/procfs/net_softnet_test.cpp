#include "procfs/net_softnet.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Softnet, ParsesEveryKernelWidth) {
  auto s = parse_softnet(
      // 5.10+: 13 columns and more
      "1a2f3c4d 00000000 0000012d 00000000 00000000 00000000 00000000 00000000 00000003 0000a1b2 00000000 "
      "00000000 00000000 00000000 00000000\n"
      // 2.6.23: 9 columns
      "00000010 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000005\n"
      // 4.17: 11 columns; 10 and 12 are read as well
      "00000020 00000002 FFFFFFFF 00000000 00000000 00000000 00000000 00000000 00000005 00000006 00000007\n"
      "00000030 00000003 00000004 00000000 00000000 00000000 00000000 00000000 00000005 00000006\n");
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->size(), 4u);
  EXPECT_EQ((*s)[0].processed, 0x1a2f3c4du);
  EXPECT_EQ((*s)[0].dropped, 0u);
  EXPECT_EQ((*s)[0].time_squeezed, 0x12du);
  EXPECT_EQ((*s)[1].processed, 16u);
  EXPECT_EQ((*s)[2].time_squeezed, 0xFFFFFFFFu);
  EXPECT_EQ((*s)[3].dropped, 3u);
}

TEST(Softnet, OnlyTheFirstThreeColumnsMustBeHex) {
  // procfs 0.8 reads nothing else.
  EXPECT_TRUE(parse_softnet("00000010 00000001 00000002 0000000z 0 0 0 0 zz\n"));
  auto bad = parse_softnet("00000010 00000001 0000000z 00000000 0 0 0 0 0\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("/proc/net/softnet_stat:1:"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("0000000z"), std::string::npos) << bad.error();
  EXPECT_FALSE(parse_softnet("100000000 0 0 0 0 0 0 0 0\n"));  // wider than 32 bits
}

TEST(Softnet, TooFewColumnsAndEmptyInput) {
  auto s = parse_softnet("00000010 00000001 00000002 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find(":2: 8 columns were detected, but at least 9 were expected"), std::string::npos)
      << s.error();
  auto empty = parse_softnet("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace llmon::procfs
