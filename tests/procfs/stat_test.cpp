#include "procfs/stat.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr const char* kStat =
    "cpu  1329360 2651 451279 35912390 13780 0 14683 1204 88 47\n"
    "cpu0 331480 612 118922 8972004 3552 0 3944 301 44 36\n"
    "cpu1 335812 1020 112488 8978553 3419 0 3741 298 0 0\n"
    "intr 95326771 9 0 0 156\n"
    "ctxt 183560418\n"
    "btime 1717430400\n"
    "processes 2219014\n"
    "procs_running 3\n"
    "procs_blocked 1\n"
    "softirq 41859244 7 12811203 1322 3410211 1190512 0 2203 14183920 0 10257866\n";

TEST(ProcStatParser, ParsesAllFields) {
  auto st = parse_stat(kStat);
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(st->boot_time, 1717430400u);
  EXPECT_EQ(st->irq_total, 95326771u);
  EXPECT_EQ(st->context_switches, 183560418u);
  EXPECT_EQ(st->processes_created, 2219014u);
  EXPECT_EQ(st->procs_running, 3u);
  EXPECT_EQ(st->procs_blocked, 1u);
  EXPECT_EQ(st->softirq_total, 41859244u);
  EXPECT_EQ(st->softirq.hi, 7u);
  EXPECT_EQ(st->softirq.timer, 12811203u);
  EXPECT_EQ(st->softirq.rcu, 10257866u);
  ASSERT_EQ(st->cpus.size(), 2u);
  const CpuTimes& c0 = st->cpus[0];
  EXPECT_TRUE(c0.present);
  EXPECT_DOUBLE_EQ(c0.user, 3314.8);
  EXPECT_DOUBLE_EQ(c0.idle, 89720.04);
  EXPECT_DOUBLE_EQ(c0.steal, 3.01);
  EXPECT_DOUBLE_EQ(c0.guest, 0.44);
  EXPECT_DOUBLE_EQ(c0.guest_nice, 0.36);
  EXPECT_DOUBLE_EQ(st->total.user, 13293.6);
  // Exactly node_exporter's arithmetic: ticks parsed as a double, then / 100.
  EXPECT_EQ(st->cpus[1].user, 335812.0 / 100.0);
}

TEST(ProcStatParser, GapsInCpuNumbersAreZeroEntries) {
  auto st = parse_stat("cpu0 1 2 3 4\ncpu2 5 6 7 8\n");
  ASSERT_TRUE(st) << st.error();
  ASSERT_EQ(st->cpus.size(), 3u);
  EXPECT_TRUE(st->cpus[0].present);
  EXPECT_FALSE(st->cpus[1].present);
  EXPECT_EQ(st->cpus[1].idle, 0);
  EXPECT_TRUE(st->cpus[2].present);
  EXPECT_DOUBLE_EQ(st->cpus[2].idle, 0.08);
}

TEST(ProcStatParser, ShortCpuLinesLeaveLaterFieldsZero) {
  auto st = parse_stat("cpu0 100 200\ncpu1 1 2 3 4 5 6 7 8\n");
  ASSERT_TRUE(st) << st.error();
  EXPECT_DOUBLE_EQ(st->cpus[0].user, 1);
  EXPECT_DOUBLE_EQ(st->cpus[0].nice, 2);
  EXPECT_EQ(st->cpus[0].system, 0);
  EXPECT_DOUBLE_EQ(st->cpus[1].steal, 0.08);
  EXPECT_EQ(st->cpus[1].guest, 0);
}

TEST(ProcStatParser, SkipsUnknownAndSingleFieldLines) {
  auto st = parse_stat("\n   \nbtime\ncpu3\nfoo bar baz\nbtime 42\n");
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(st->boot_time, 42u);
  EXPECT_TRUE(st->cpus.empty());
}

TEST(ProcStatParser, EmptyInputGivesZeros) {
  auto st = parse_stat("");
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(st->boot_time, 0u);
  EXPECT_TRUE(st->cpus.empty());
}

TEST(ProcStatParser, MalformedValuesAreErrorsNamingTheLine) {
  auto bad_cpu = parse_stat("cpu0 1 2 3\ncpu1 329718 50x1 110213\n");
  ASSERT_FALSE(bad_cpu);
  EXPECT_NE(bad_cpu.error().find("/proc/stat:2:"), std::string::npos) << bad_cpu.error();
  EXPECT_NE(bad_cpu.error().find("50x1"), std::string::npos) << bad_cpu.error();

  EXPECT_FALSE(parse_stat("btime -1\n"));
  EXPECT_FALSE(parse_stat("ctxt 1.5\n"));
  EXPECT_FALSE(parse_stat("intr x 1 2\n"));  // a bad total fails
  // Per-IRQ numbers are not parsed (cost); procfs would reject this line.
  auto per_irq = parse_stat("intr 10 1 x 3\n");
  ASSERT_TRUE(per_irq);
  EXPECT_EQ(per_irq->irq_total, 10u);
  EXPECT_FALSE(parse_stat("cpux 1 2 3\n"));
  EXPECT_FALSE(parse_stat("cpu99999999 1 2 3\n"));  // beyond kMaxCpuId
}

TEST(ProcStatParser, TruncatedSoftirqLineIsAnError) {
  auto st = parse_stat("softirq 41859244 7 12811203\n");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().find("truncated"), std::string::npos) << st.error();
}

TEST(ProcStatParser, TruncatedFileParsesWhatIsThere) {
  // A read cut mid-line: the last CPU line is short but still numbers.
  auto st = parse_stat("cpu0 331480 612 118922 8972004\ncpu1 3358");
  ASSERT_TRUE(st) << st.error();
  ASSERT_EQ(st->cpus.size(), 2u);
  EXPECT_DOUBLE_EQ(st->cpus[1].user, 33.58);
}

TEST(ProcStatParser, ReusesOutputStorage) {
  ProcStat out;
  ASSERT_TRUE(parse_stat(kStat, out));
  const CpuTimes* data = out.cpus.data();
  ASSERT_TRUE(parse_stat(kStat, out));
  EXPECT_EQ(out.cpus.data(), data);
  EXPECT_EQ(out.cpus.size(), 2u);
  // A second parse starts from zero: fields absent now do not leak from before.
  ASSERT_TRUE(parse_stat("cpu0 1\n", out));
  EXPECT_EQ(out.boot_time, 0u);
  EXPECT_EQ(out.cpus.size(), 1u);
  EXPECT_EQ(out.cpus[0].idle, 0);
}

}  // namespace
}  // namespace llmon::procfs
