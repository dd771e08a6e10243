#include "procfs/process_stat.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

// A real /proc/<pid>/stat line (kernel 6.1), with a command name holding
// spaces and parentheses.
constexpr std::string_view kStat =
    "4242 (llmon (agent) x) S 1 4242 4242 0 -1 4194560 1532 0 0 0 137 42 0 0 20 0 9 0 123456 92094464 1346 "
    "18446744073709551615 1 1 0 0 0 0 0 4096 16384 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

TEST(ProcessStat, Parses) {
  auto s = parse_process_stat(kStat);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->utime_ticks, 137u);
  EXPECT_EQ(s->stime_ticks, 42u);
  EXPECT_EQ(s->starttime_ticks, 123456u);
  EXPECT_EQ(s->vsize_bytes, 92094464u);
  EXPECT_EQ(s->rss_pages, 1346);
}

TEST(ProcessStat, MalformedAndTruncated) {
  EXPECT_FALSE(parse_process_stat(""));
  EXPECT_FALSE(parse_process_stat("4242 llmon S 1"));  // no parentheses
  EXPECT_FALSE(parse_process_stat(kStat.substr(0, 60)));
  std::string bad(kStat);
  bad.replace(bad.find(" 137 "), 5, " x37 ");
  auto s = parse_process_stat(bad);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("field 14"), std::string::npos);
}

constexpr std::string_view kLimits =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max file size             unlimited            unlimited            bytes     \n"
    "Max open files            1024                 1048576              files     \n"
    "Max address space         unlimited            unlimited            bytes     \n"
    "Max realtime timeout      unlimited            unlimited            us        \n";

TEST(ProcessLimits, Parses) {
  auto l = parse_process_limits(kLimits);
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->max_open_files, 1024);
  EXPECT_EQ(l->max_address_space_bytes, 18446744073709551615.0);
}

TEST(ProcessLimits, MissingOrBadRows) {
  EXPECT_FALSE(parse_process_limits(""));
  EXPECT_FALSE(parse_process_limits(kLimits.substr(0, 200)));  // cut before "Max open files"
  auto l = parse_process_limits(
      "Max open files            lots                 1048576              files\n"
      "Max address space         unlimited            unlimited            bytes\n");
  ASSERT_FALSE(l);
  EXPECT_NE(l.error().find("limits:1"), std::string::npos);
}

TEST(BootTime, FromProcStat) {
  auto b = parse_boot_time("cpu  1 2 3 4\nintr 5\nctxt 6\nbtime 1700000000\nprocesses 7\n");
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(*b, 1700000000u);
  EXPECT_FALSE(parse_boot_time(""));
  EXPECT_FALSE(parse_boot_time("cpu 1 2 3\n"));
  EXPECT_FALSE(parse_boot_time("btime soon\n"));
}

}  // namespace
}  // namespace llmon::procfs
