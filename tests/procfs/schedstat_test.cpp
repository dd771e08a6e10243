#include "procfs/schedstat.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(SchedstatParser, CpuLinesOnly) {
  auto p = parse_schedstat(
      "version 15\n"
      "timestamp 4307411723\n"
      "cpu0 0 0 0 0 0 0 3315018763542 275940119436 40172418\n"
      "domain0 00000003 131074 130871 1 3 202 0 0 130871 2 2 0 0 0 0 0 2 5 5 0 0 0 0 0 5 0 0 0 0 0 0 0 0 0 0 1\n"
      "cpu12 0 0 0 0 0 0 10 20 30\n");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].cpu, "0");
  EXPECT_EQ((*p)[0].running_ns, 3315018763542u);
  EXPECT_EQ((*p)[0].waiting_ns, 275940119436u);
  EXPECT_EQ((*p)[0].timeslices, 40172418u);
  EXPECT_EQ((*p)[1].cpu, "12");
  EXPECT_EQ((*p)[1].timeslices, 30u);
}

TEST(SchedstatParser, LinesNotShapedLikeTheRegexpAreSkipped) {
  // Too few numbers, two spaces, a letter: procfs' regexp does not match.
  auto p = parse_schedstat(
      "cpu0 0 0 0 0 0 0 1 2\n"
      "cpu1  0 0 0 0 0 0 1 2 3\n"
      "cpu2 0 0 0 0 0 0 1 2 x\n"
      "cpux 0 0 0 0 0 0 1 2 3\n"
      "xcpu3 0 0 0 0 0 0 1 2 3 4 5\n");  // unanchored, as Go's FindStringSubmatch
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].cpu, "3");
  EXPECT_EQ((*p)[0].timeslices, 3u);
  EXPECT_TRUE(parse_schedstat("")->empty());
}

TEST(SchedstatParser, OverflowIsAnErrorNamingTheLine) {
  std::vector<SchedstatCpu> out;
  Status s = parse_schedstat("version 15\ncpu0 0 0 0 0 0 0 1 2 3\ncpu1 0 0 0 0 0 0 99999999999999999999 2 3\n", out,
                             "/proc/schedstat");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "/proc/schedstat:3: cpu1: a value overflows uint64");
  EXPECT_EQ(out.size(), 1u);
}

}  // namespace
}  // namespace llmon::procfs
