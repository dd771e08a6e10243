#include "procfs/pid_stat.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

// /proc/<pid>/stat of a PyTorch rank (kernel 6.1, 52 fields).
constexpr std::string_view kStat =
    "4102 (pt_main_thread) S 4100 4100 4100 0 -1 4194560 12872311 0 1771 0 8160511 417413 0 0 20 0 87 0 1843214 "
    "90815070208 3895296 18446744073709551615 94347713835008 94347716614357 140726404470560 0 0 0 0 16781312 "
    "134234626 0 0 0 17 6 0 0 0 0 0 94347717346704 94347717700368 94347735212032 140726404475337 140726404475412 "
    "140726404475412 140726404476903 0\n";

TEST(PidStat, Parses) {
  auto s = parse_pid_stat(kStat);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->comm, "pt_main_thread");
  EXPECT_EQ(s->state, 'S');
  EXPECT_EQ(s->utime_ticks, 8160511u);
  EXPECT_EQ(s->stime_ticks, 417413u);
  EXPECT_EQ(s->starttime_ticks, 1843214u);
}

TEST(PidStat, CommWithSpacesAndParentheses) {
  // comm is whatever the process set (prctl PR_SET_NAME), up to 15 bytes.
  auto s = parse_pid_stat("77 (a) b (c)) ) R 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 999 0 0\n");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->comm, "a) b (c)) ");
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->utime_ticks, 5u);
  EXPECT_EQ(s->stime_ticks, 6u);
  EXPECT_EQ(s->starttime_ticks, 999u);
  auto empty = parse_pid_stat("78 () Z 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0\n");
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_EQ(empty->comm, "");
  EXPECT_EQ(empty->state, 'Z');
  EXPECT_EQ(empty->starttime_ticks, 42u);
}

TEST(PidStat, MalformedAndTruncated) {
  EXPECT_FALSE(parse_pid_stat(""));
  EXPECT_FALSE(parse_pid_stat("4102 pt_main_thread S 4100"));                        // no parentheses
  EXPECT_FALSE(parse_pid_stat("4102 )x( S 1 2 3"));                                  // ')' before '('
  EXPECT_FALSE(parse_pid_stat(std::string("abc ") + std::string(kStat.substr(5))));  // pid not a number
  // Every cut before field 22 (starttime) is an error; later cuts parse.
  size_t field22 = kStat.find(" 1843214 ") + 1;
  for (size_t n = 0; n <= field22; ++n) EXPECT_FALSE(parse_pid_stat(kStat.substr(0, n))) << n;
  for (size_t n = field22 + 7; n <= kStat.size(); ++n) EXPECT_TRUE(parse_pid_stat(kStat.substr(0, n))) << n;
  std::string bad(kStat);
  bad.replace(bad.find(" 8160511 "), 9, " 81605x1 ");
  auto s = parse_pid_stat(bad);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("field 14"), std::string::npos) << s.error();
  std::string bad_state(kStat);
  bad_state.replace(bad_state.find(") S "), 4, ") SS ");
  EXPECT_FALSE(parse_pid_stat(bad_state));
  EXPECT_FALSE(parse_pid_stat(std::string("\x00\xff(\x01)\x02", 6)));
}

constexpr std::string_view kStatus =
    "Name:\tpt_main_thread\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "Tgid:\t4102\n"
    "Pid:\t4102\n"
    "PPid:\t4100\n"
    "Uid:\t1000\t1001\t1002\t1003\n"
    "Gid:\t1000\t1000\t1000\t1000\n"
    "NSpid:\t4102\t18\n"
    "VmPeak:\t47004672 kB\n"
    "VmHWM:\t16629760 kB\n"
    "VmRSS:\t15581184 kB\n"
    "RssAnon:\t15400960 kB\n"
    "Threads:\t87\n";

TEST(PidStatus, Parses) {
  auto s = parse_pid_status(kStatus);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->uid, 1000u);  // the real uid, not effective/saved/fs
  EXPECT_EQ(s->rss_bytes, 15581184ull * 1024);
}

TEST(PidStatus, KernelThreadHasNoRss) {
  auto s = parse_pid_status("Name:\tkworker/0:1\nState:\tI (idle)\nUid:\t0\t0\t0\t0\nThreads:\t1\n");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->uid, 0u);
  EXPECT_EQ(s->rss_bytes, 0u);
}

TEST(PidStatus, Malformed) {
  EXPECT_FALSE(parse_pid_status(""));
  EXPECT_FALSE(parse_pid_status("Name:\tx\nVmRSS:\t12 kB\n"));  // no Uid
  auto s = parse_pid_status("Name:\tx\nUid:\tabc\t0\t0\t0\n");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("status:2"), std::string::npos) << s.error();
  EXPECT_FALSE(parse_pid_status("Uid:\n"));
  EXPECT_FALSE(parse_pid_status("Uid:\t4294967296\t0\t0\t0\n"));  // > 32 bits
  auto rss = parse_pid_status("Uid:\t0\t0\t0\t0\nVmRSS:\t12 MB\n");
  ASSERT_FALSE(rss);
  EXPECT_NE(rss.error().find("status:2"), std::string::npos) << rss.error();
  EXPECT_FALSE(parse_pid_status("Uid:\t0\t0\t0\t0\nVmRSS:\t18446744073709551615 kB\n"));     // overflows bytes
  for (size_t n = 0; n < kStatus.size(); ++n) (void)parse_pid_status(kStatus.substr(0, n));  // no crash
  EXPECT_FALSE(parse_pid_status(kStatus.substr(0, kStatus.find("Uid:"))));
}

TEST(TaskStat, StateAndThreadsAsProcfsScansThem) {
  std::vector<std::string_view> scratch;
  const std::string tail =
      " 1380 1403 1403 0 -1 4194560 20311 1203311 18 411 8812044 301224 120 88 20 0 4 0 90412 "
      "61247332352 2621440 18446744073709551615 1 1 0 0 0 0 671173123 4096 1260 0 0 0 17 0 0 0 14";
  auto st = parse_task_stat("1403 (python3 (worker)) R" + tail + "\n", scratch);
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(st->state, "R");
  EXPECT_EQ(st->num_threads, 4);
  auto shortline = parse_task_stat("1403 (python3) R" + tail.substr(0, tail.rfind(' ')), scratch);  // 41 fields
  ASSERT_FALSE(shortline);
  EXPECT_NE(shortline.error().find("expected at least 42 fields, got 41"), std::string::npos) << shortline.error();
  std::string bad = "1403 (python3) R" + tail;
  bad.replace(bad.find(" 4 0 90412"), 3, " x ");
  EXPECT_FALSE(parse_task_stat(bad, scratch));
  EXPECT_FALSE(parse_task_stat("no parentheses", scratch));
}

TEST(Cmdline, Argv0Basename) {
  using namespace std::string_literals;
  EXPECT_EQ(cmdline_command("/usr/bin/python3\0train.py\0--lr\0"s), "python3");
  EXPECT_EQ(cmdline_command("tritonserver\0--model-repository=/models\0"s), "tritonserver");
  EXPECT_EQ(cmdline_command("python3"), "python3");  // no NUL at all
  EXPECT_EQ(cmdline_command(""), "");
  EXPECT_EQ(cmdline_command("\0x\0"s), "");
  EXPECT_EQ(cmdline_command("/opt/bin/\0"s), "");
}

}  // namespace
}  // namespace llmon::procfs
