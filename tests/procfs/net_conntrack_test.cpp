#include "procfs/net_conntrack.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr std::string_view kHeader =
    "entries  clashres found new invalid ignore delete chainlength insert insert_failed drop early_drop "
    "icmp_error  expect_new expect_create expect_delete search_restart\n";

TEST(ConntrackStat, SumsColumnsOverCpus) {
  std::string text(kHeader);
  text +=
      "00001075  00000002 0000001c 00000000 000003e1 0001a2b4 00000000 00000000 00000001 00000000 00000000 "
      "00000000 00000011  00000000 00000000 00000000 0000002a\n"
      "00001075  00000000 00000009 00000000 000001f0 0000c350 00000000 00000000 00000002 00000001 00000003 "
      "00000002 00000005  00000000 00000000 00000000 0000000e\n";
  auto s = parse_conntrack_stat(text);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->found, 0x1cu + 9);
  EXPECT_EQ(s->invalid, 0x3e1u + 0x1f0u);
  EXPECT_EQ(s->ignore, 0x1a2b4u + 0xc350u);
  EXPECT_EQ(s->insert, 3u);
  EXPECT_EQ(s->insert_failed, 1u);
  EXPECT_EQ(s->drop, 3u);
  EXPECT_EQ(s->early_drop, 2u);
  EXPECT_EQ(s->search_restart, 0x2au + 0xeu);
}

TEST(ConntrackStat, HeaderOnlyIsZero) {
  auto s = parse_conntrack_stat(kHeader);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->found, 0u);
}

TEST(ConntrackStat, WrongFieldCountOrNonHexFails) {
  std::string h(kHeader);
  const char* bad[] = {
      "1 2 3 4 5 6 7 8 9 a b c d e f 10\n",        // 16 fields
      "1 2 3 4 5 6 7 8 9 a b c d e f 10 11 12\n",  // 18
      "1 2 3 4 5 6 7 8 9 a b c d e f 10 1z\n",
      "\n",
  };
  for (const char* line : bad) {
    auto s = parse_conntrack_stat(h + line);
    ASSERT_FALSE(s) << line;
    EXPECT_NE(s.error().find("/proc/net/stat/nf_conntrack:2:"), std::string::npos) << s.error();
  }
}

TEST(SysctlUint, TrimsAndRejectsNonNumbers) {
  EXPECT_EQ(*parse_sysctl_uint("262144\n", "f"), 262144u);
  EXPECT_EQ(*parse_sysctl_uint(" 0 ", "f"), 0u);
  auto bad = parse_sysctl_uint("-1\n", "/proc/sys/net/netfilter/nf_conntrack_max");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("nf_conntrack_max"), std::string::npos) << bad.error();
  EXPECT_FALSE(parse_sysctl_uint("", "f"));
  EXPECT_FALSE(parse_sysctl_uint("12 13", "f"));
}

}  // namespace
}  // namespace llmon::procfs
