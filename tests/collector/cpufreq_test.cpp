#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

const std::string kCpu = "sys/devices/system/cpu/";

TEST(CpuFreqCollector, FixtureValues) {
  auto c = make_cpufreq(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // cpu3 has no (root-only) cpuinfo_cur_freq: no series for it.
  EXPECT_EQ(series_count(snap, "node_cpu_frequency_hertz"), 3u);
  EXPECT_EQ(value_of(snap, "node_cpu_frequency_hertz", {{"cpu", "0"}}), 2301000000.0);
  EXPECT_EQ(value_of(snap, "node_cpu_frequency_hertz", {{"cpu", "2"}}), 1200000000.0);
  EXPECT_EQ(value_of(snap, "node_cpu_frequency_min_hertz", {{"cpu", "3"}}), 800000000.0);
  EXPECT_EQ(value_of(snap, "node_cpu_frequency_max_hertz", {{"cpu", "1"}}), 3400000000.0);
  EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 4u);
  EXPECT_EQ(value_of(snap, "node_cpu_scaling_frequency_hertz", {{"cpu", "3"}}), 2750000000.0);
  EXPECT_EQ(value_of(snap, "node_cpu_scaling_frequency_min_hertz", {{"cpu", "0"}}), 1200000000.0);
  EXPECT_EQ(value_of(snap, "node_cpu_scaling_frequency_max_hertz", {{"cpu", "2"}}), 3400000000.0);
  // node_exporter 1.5 has no governor metric.
  EXPECT_EQ(snap.find("node_cpu_scaling_governor"), nullptr);
  const model::Family* f = snap.find("node_cpu_frequency_hertz");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kGauge);
  EXPECT_EQ(f->help, "Current cpu thread frequency in hertz.");
}

TEST(CpuFreqCollector, NoCpufreqIsSuccessWithoutSeries) {
  TempFixture t;
  for (int i = 0; i < 4; ++i) t.remove(kCpu + "cpu" + std::to_string(i) + "/cpufreq");
  auto c = make_cpufreq(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 0u);

  TempFixture empty({});
  auto c2 = make_cpufreq(empty.context());
  ASSERT_TRUE(collect_once(*c2, snap));
  EXPECT_EQ(series_count(snap, "node_cpu_frequency_hertz"), 0u);
}

TEST(CpuFreqCollector, MissingRequiredAttributeFailsLikeProcfs) {
  TempFixture t;
  t.remove(kCpu + "cpu1/cpufreq/scaling_setspeed");
  auto c = make_cpufreq(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("scaling_setspeed"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 0u);
  // The failure persists on later cycles, with no partial output.
  for (int i = 2; i < 5; ++i) {
    EXPECT_FALSE(collect_once(*c, snap, i * 1000));
    EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 0u);
  }
  t.write(kCpu + "cpu1/cpufreq/scaling_setspeed", "<unsupported>\n");
  ASSERT_TRUE(collect_once(*c, snap, 6000));
  EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 4u);
}

TEST(CpuFreqCollector, GarbageFrequencyFailsWithoutSeries) {
  TempFixture t;
  t.write(kCpu + "cpu2/cpufreq/scaling_cur_freq", "<unknown>\n");
  auto c = make_cpufreq(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cpu2/cpufreq/scaling_cur_freq"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, "node_cpu_frequency_hertz"), 0u);
  // Empty file: not a number either.
  t.write(kCpu + "cpu2/cpufreq/scaling_cur_freq", "");
  EXPECT_FALSE(collect_once(*c, snap, 2000));
}

TEST(CpuFreqCollector, CpufreqDirectoryComingAndGoing) {
  TempFixture t;
  t.remove(kCpu + "cpu1/cpufreq");
  auto c = make_cpufreq(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 3u);
  // A driver loaded later: CPUs without cpufreq are probed every 16 cycles.
  const std::string d = kCpu + "cpu1/cpufreq/";
  for (const char* f :
       {"scaling_available_governors", "scaling_driver", "scaling_governor", "related_cpus", "scaling_setspeed"})
    t.write(d + f, "x\n");
  t.write(d + "scaling_cur_freq", "1500000\n");
  int cycles = 0;
  while (series_count(snap, "node_cpu_scaling_frequency_hertz") != 4u && cycles < 16) {
    ++cycles;
    ASSERT_TRUE(collect_once(*c, snap, 2000 + cycles * 1000));
  }
  EXPECT_GE(cycles, 2);  // not probed every cycle
  EXPECT_EQ(value_of(snap, "node_cpu_scaling_frequency_hertz", {{"cpu", "1"}}), 1500000000.0);
  // cpu1 goes offline and loses its cpufreq directory: the online list changes.
  t.remove(kCpu + "cpu1/cpufreq");
  t.write(kCpu + "online", "0,2-3\n");
  ASSERT_TRUE(collect_once(*c, snap, 30000));
  EXPECT_EQ(series_count(snap, "node_cpu_scaling_frequency_hertz"), 3u);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_cpu_scaling_frequency_hertz", {{"cpu", "1"}})));
}

}  // namespace
}  // namespace llmon::collector
