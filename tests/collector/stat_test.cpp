#include <gtest/gtest.h>

#include <string>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector/proc_stat_source.h"
#include <cstdio>
#include <unistd.h>
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(StatCollector, FixtureValues) {
  auto c = make_stat(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_boot_time_seconds", {}), 1717430400.0);
  EXPECT_EQ(value_of(snap, "node_context_switches_total", {}), 183560418.0);
  EXPECT_EQ(value_of(snap, "node_forks_total", {}), 2219014.0);
  EXPECT_EQ(value_of(snap, "node_intr_total", {}), 95326771.0);
  EXPECT_EQ(value_of(snap, "node_procs_running", {}), 3);
  EXPECT_EQ(value_of(snap, "node_procs_blocked", {}), 1);
  EXPECT_EQ(snap.find("node_boot_time_seconds")->type, model::MetricType::kGauge);
  EXPECT_EQ(snap.find("node_intr_total")->type, model::MetricType::kCounter);
  // softirqs are off by default, as in node_exporter 1.5.
  EXPECT_EQ(series_count(snap, "node_softirqs_total"), 0u);
}

TEST(StatCollector, SoftirqsWhenEnabled) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorStatSoftirq, "true");
  auto c = make_stat(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_softirqs_total"), 10u);
  EXPECT_EQ(value_of(snap, "node_softirqs_total", {{"vector", "timer"}}), 12811203.0);
  EXPECT_EQ(value_of(snap, "node_softirqs_total", {{"vector", "block_iopoll"}}), 0);
  EXPECT_EQ(value_of(snap, "node_softirqs_total", {{"vector", "rcu"}}), 10257866.0);
}

TEST(StatCollector, MissingLinesReadAsZero) {
  TempFixture t;
  t.write("proc/stat", "cpu0 1 2 3 4\nctxt 5\n");
  auto c = make_stat(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_context_switches_total", {}), 5);
  EXPECT_EQ(value_of(snap, "node_boot_time_seconds", {}), 0);
}

TEST(StatCollector, MalformedOrMissingFileFails) {
  TempFixture t;
  t.write("proc/stat", "btime 1717430400\nsoftirq 41859244 7 12811203\n");
  auto c = make_stat(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("stat:2:"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, "node_boot_time_seconds"), 0u);
  t.remove("proc/stat");
  auto c2 = make_stat(t.context());
  EXPECT_FALSE(collect_once(*c2, snap));
}

}  // namespace
}  // namespace llmon::collector

namespace llmon::collector {
namespace {

TEST(ProcStatSource, ReadsOncePerCycle) {
  char dir[] = "/tmp/llmon_stat_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/stat";
  auto write = [&](const char* text) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(text, f);
    std::fclose(f);
  };
  write("ctxt 1\n");
  ProcStatSource src(path);
  auto a = src.get(1000);
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)->context_switches, 1u);
  write("ctxt 2\n");
  EXPECT_EQ((*src.get(1000))->context_switches, 1u);  // same cycle: not re-read
  EXPECT_EQ((*src.get(2000))->context_switches, 2u);  // next cycle: re-read
  write("ctxt x\n");
  auto bad = src.get(3000);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find(path), std::string::npos) << bad.error();
  EXPECT_FALSE(src.get(3000));  // the error holds for the whole cycle
  std::remove(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace llmon::collector
