#include "procfs/xfs_stats.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(XfsStatsParser, KernelLines) {
  auto p = parse_xfs_stats(
      "extent_alloc 1420533 163872511 1386204 158927352\n"
      "abt 0 0 0 0\n"
      "blk_map 291834762 41873105 2760812 1622075 1393861 337516104 0\n"
      "dir 5732066 1794113 1741027 117290541\n"
      "ig 0 3204755 3 2529511 0 2485392 604017\n"
      "push_ail 10736211 0 1288830 309861 0 28217 163 4183672 0 3621\n"
      "rw 418330597 168201043\n"
      "vnodes 44119 0 0 0 2485392 2485392 2485392 0\n"
      "abtb2 2866127 24719303 392615 388340 145 139 5122 903 2114 2192 181 143 318 294 49221042\n"
      "xpc 705612263424 761193152841 2018433726715\n"
      "debug 0\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->extent_alloc[1], 163872511u);
  EXPECT_EQ(p->blk_map[5], 337516104u);
  EXPECT_EQ(p->ig[6], 604017u);
  EXPECT_EQ(p->rw[0], 418330597u);
  EXPECT_EQ(p->vnodes[0], 44119u);
  EXPECT_EQ(p->xpc[2], 2018433726715u);
  EXPECT_EQ(p->bmbt[0], 0u);  // absent line
  ASSERT_EQ(p->line("dir").size(), 4u);
  EXPECT_EQ(p->line("dir")[3], 117290541u);
  EXPECT_TRUE(p->line("push_ail").empty());
}

TEST(XfsStatsParser, OldVnodesLineAndShortLines) {
  auto p = parse_xfs_stats("vnodes 1 2 3 4 5 6 7\nabt\n\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->vnodes[6], 7u);
  EXPECT_EQ(p->vnodes[7], 0u);
}

TEST(XfsStatsParser, BadLinesNameFileAndLine) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"abt 0 0 0 0\nrw 1 2 3\n", "f:2: rw: expected 2 values, got 3"},
      {"vnodes 1 2 3 4 5 6\n", "f:1: vnodes: expected 8 values, got 6"},
      {"dir 1 2 3 4294967296\n", "f:1: dir: value 4 is not a uint32: \"4294967296\""},
      {"push_ail 1 x\n", "f:1: push_ail: value 2 is not a uint32: \"x\""},
      {"xpc 1 2\n", "f:1: xpc: expected 3 values, got 2"},
  };
  for (const auto& c : cases) {
    auto p = parse_xfs_stats(c.text, "f");
    ASSERT_FALSE(p) << c.text;
    EXPECT_EQ(p.error(), c.message);
  }
  EXPECT_TRUE(parse_xfs_stats("xpc 4294967296 0 0\n"));
}

}  // namespace
}  // namespace llmon::procfs
