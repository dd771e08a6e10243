#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

constexpr const char* kSecs = "node_cpu_seconds_total";
constexpr const char* kGuest = "node_cpu_guest_seconds_total";

// The fixture's per-CPU lines of /proc/stat, with cpu lines replaced by `cpus`.
std::string stat_with(const std::string& cpus) {
  return "cpu  1329360 2651 451279 35912390 13780 0 14683 1204 88 47\n" + cpus +
         "intr 95326771 9 0 0\nctxt 183560418\nbtime 1717430400\nprocesses 2219014\n"
         "procs_running 3\nprocs_blocked 1\n"
         "softirq 41859244 7 12811203 1322 3410211 1190512 0 2203 14183920 0 10257866\n";
}

TEST(CpuCollector, FixtureValues) {
  auto c = make_cpu(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(series_count(snap, kSecs), 32u);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "user"}}), 3314.8);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "nice"}}), 6.12);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "system"}}), 1189.22);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "idle"}}), 89720.04);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "iowait"}}), 35.52);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "irq"}}), 0);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "softirq"}}), 39.44);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "steal"}}), 3.01);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "3"}, {"mode", "idle"}}), 89798.22);
  EXPECT_EQ(series_count(snap, kGuest), 8u);
  EXPECT_EQ(value_of(snap, kGuest, {{"cpu", "0"}, {"mode", "user"}}), 0.44);
  EXPECT_EQ(value_of(snap, kGuest, {{"cpu", "2"}, {"mode", "nice"}}), 0.11);
  // isolated holds "3".
  EXPECT_EQ(series_count(snap, "node_cpu_isolated"), 1u);
  EXPECT_EQ(value_of(snap, "node_cpu_isolated", {{"cpu", "3"}}), 1);
  // cpu0 and cpu2 share core 0; cpu0 (first in glob order) gives its count.
  EXPECT_EQ(series_count(snap, "node_cpu_core_throttles_total"), 2u);
  EXPECT_EQ(value_of(snap, "node_cpu_core_throttles_total", {{"core", "0"}, {"package", "0"}}), 12);
  EXPECT_EQ(value_of(snap, "node_cpu_core_throttles_total", {{"core", "1"}, {"package", "0"}}), 0);
  EXPECT_EQ(series_count(snap, "node_cpu_package_throttles_total"), 1u);
  EXPECT_EQ(value_of(snap, "node_cpu_package_throttles_total", {{"package", "0"}}), 34);
  const model::Family* f = snap.find(kSecs);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, model::MetricType::kCounter);
  EXPECT_EQ(f->label_names, (std::vector<std::string>{"cpu", "mode"}));
  EXPECT_EQ(snap.find("node_cpu_core_throttles_total")->label_names, (std::vector<std::string>{"core", "package"}));
}

TEST(CpuCollector, InfoFromCpuinfoWhenEnabled) {
  auto ctx = fixture_context();
  {
    auto c = make_cpu(ctx);  // off by default
    model::Snapshot snap;
    ASSERT_TRUE(collect_once(*c, snap));
    EXPECT_EQ(snap.find("node_cpu_info"), nullptr);
  }
  ctx.set_option(flag::kCollectorCpuInfoFlagsInclude, "^(avx512f|amx_.*|ht)$");  // implies cpu.info
  auto c = make_cpu(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(series_count(snap, "node_cpu_info"), 4u);
  EXPECT_EQ(value_of(snap, "node_cpu_info",
                     {{"cachesize", "107520 KB"},
                      {"core", "1"},
                      {"cpu", "3"},
                      {"family", "6"},
                      {"microcode", "0x2b000461"},
                      {"model", "143"},
                      {"model_name", "Intel(R) Xeon(R) Platinum 8480+"},
                      {"package", "0"},
                      {"stepping", "8"},
                      {"vendor", "GenuineIntel"}}),
            1);
  testing::expect_family(snap, "node_cpu_info", model::MetricType::kGauge, "CPU information from /proc/cpuinfo.");
  testing::expect_family(snap, "node_cpu_flag_info", model::MetricType::kGauge,
                         "The `flags` field of CPU information from /proc/cpuinfo taken from the first core.");
  EXPECT_EQ(series_count(snap, "node_cpu_flag_info"), 5u);  // avx512f, ht, amx_bf16, amx_tile, amx_int8
  EXPECT_EQ(value_of(snap, "node_cpu_flag_info", {{"flag", "amx_tile"}}), 1);
  EXPECT_EQ(snap.find("node_cpu_bug_info"), nullptr);  // no bugs-include: none
  EXPECT_EQ(series_count(snap, kSecs), 32u);
}

TEST(CpuCollector, BadCpuinfoFailsBeforeTheTimes) {
  TempFixture t;
  t.write("proc/cpuinfo", "processor\t: zero\n");
  auto ctx = t.context();
  ctx.set_option(flag::kCollectorCpuInfo, "true");
  auto c = make_cpu(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(t.path("proc/cpuinfo") + ":1:"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, kSecs), 0u);
}

TEST(CpuCollector, GuestMetricCanBeDisabled) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorCpuGuest, "false");
  auto c = make_cpu(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, kGuest), 0u);
  EXPECT_EQ(series_count(snap, kSecs), 32u);
}

TEST(CpuCollector, CountersNeverGoBackwardsUnlessIdleJumpsThreeSeconds) {
  TempFixture t;
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  // cpu0: idle -1 s and user -0.1 s (small jitter): previous values are kept.
  // cpu1: idle -5 s: treated as a hotplug, the cache restarts from the new values.
  t.write("proc/stat", stat_with("cpu0 331470 612 118922 8971904 3552 0 3944 301 44 36\n"
                                 "cpu1 335800 1020 112488 8978053 3419 0 3741 298 0 0\n"
                                 "cpu2 329718 501 110213 8982011 3388 0 3509 305 44 11\n"
                                 "cpu3 332350 518 109656 8979822 3421 0 3489 300 0 0\n"));
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "idle"}}), 89720.04);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "user"}}), 3314.8);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "1"}, {"mode", "idle"}}), 89780.53);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "1"}, {"mode", "user"}}), 3358.0);
  // Counters moving forward again are taken as they are.
  t.write("proc/stat", stat_with("cpu0 331490 612 118922 8972104 3552 0 3944 301 44 36\n"
                                 "cpu1 335800 1020 112488 8978053 3419 0 3741 298 0 0\n"
                                 "cpu2 329718 501 110213 8982011 3388 0 3509 305 44 11\n"
                                 "cpu3 332350 518 109656 8979822 3421 0 3489 300 0 0\n"));
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "idle"}}), 89721.04);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "user"}}), 3314.9);
}

TEST(CpuCollector, ChangedCpuCountResetsTheCache) {
  TempFixture t;
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  // cpu3 went offline and cpu0's user time went back 0.1 s: node_exporter 1.5
  // rebuilds its per-CPU slice when the count changes, so the lower value shows.
  t.write("proc/stat", stat_with("cpu0 331470 612 118922 8972004 3552 0 3944 301 44 36\n"
                                 "cpu1 335812 1020 112488 8978553 3419 0 3741 298 0 0\n"
                                 "cpu2 329718 501 110213 8982011 3388 0 3509 305 44 11\n"));
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(series_count(snap, kSecs), 24u);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "0"}, {"mode", "user"}}), 3314.7);
  EXPECT_TRUE(std::isnan(value_of(snap, kSecs, {{"cpu", "3"}, {"mode", "user"}})));
}

TEST(CpuCollector, GapInCpuNumbersIsExportedAsZeros) {
  TempFixture t;
  t.write("proc/stat", stat_with("cpu0 331480 612 118922 8972004 3552 0 3944 301 44 36\n"
                                 "cpu2 329718 501 110213 8982011 3388 0 3509 305 44 11\n"));
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, kSecs), 24u);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "1"}, {"mode", "idle"}}), 0);
  EXPECT_EQ(value_of(snap, kSecs, {{"cpu", "2"}, {"mode", "idle"}}), 89820.11);
}

TEST(CpuCollector, MalformedStatFailsBeforeIsolatedAndThrottles) {
  TempFixture t;
  t.write("proc/stat", stat_with("cpu0 331480 61x2 118922\n"));
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("stat:2:"), std::string::npos) << s.message();
  EXPECT_EQ(series_count(snap, kSecs), 0u);
  EXPECT_EQ(series_count(snap, "node_cpu_isolated"), 0u);
  EXPECT_EQ(series_count(snap, "node_cpu_package_throttles_total"), 0u);
}

TEST(CpuCollector, EmptyOrMissingStat) {
  TempFixture t;
  t.write("proc/stat", "");
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));  // procfs accepts an empty file: no CPUs
  EXPECT_EQ(series_count(snap, kSecs), 0u);
  t.remove("proc/stat");
  auto c2 = make_cpu(t.context());
  EXPECT_FALSE(collect_once(*c2, snap));
}

TEST(CpuCollector, CpusWithoutTopologyAreSkippedForThrottles) {
  TempFixture t;
  const std::string cpu = "sys/devices/system/cpu/";
  t.write(cpu + "cpu0/topology/core_id", "garbage\n");             // cpu0 skipped: cpu2 gives core 0
  t.remove(cpu + "cpu1/thermal_throttle/package_throttle_count");  // package read from cpu2
  t.remove(cpu + "cpu0/thermal_throttle");
  t.write(cpu + "cpu2/thermal_throttle/package_throttle_count", "35\n");
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_cpu_core_throttles_total", {{"core", "0"}, {"package", "0"}}), 13);
  EXPECT_EQ(value_of(snap, "node_cpu_package_throttles_total", {{"package", "0"}}), 35);
}

TEST(CpuCollector, NoSysfsStillExportsTimes) {
  TempFixture t({"proc/stat"});
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, kSecs), 32u);
  EXPECT_EQ(series_count(snap, "node_cpu_isolated"), 0u);
  EXPECT_EQ(series_count(snap, "node_cpu_core_throttles_total"), 0u);
  EXPECT_EQ(series_count(snap, "node_cpu_package_throttles_total"), 0u);
}

TEST(CpuCollector, HotAddedCpuIsPickedUp) {
  TempFixture t;
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  // A hot-added CPU: its directory appears and the present/online lists change.
  t.write("sys/devices/system/cpu/present", "0-4\n");
  t.write("sys/devices/system/cpu/online", "0-4\n");
  t.write("proc/stat", stat_with("cpu0 331480 612 118922 8972004 3552 0 3944 301 44 36\n"
                                 "cpu1 335812 1020 112488 8978553 3419 0 3741 298 0 0\n"
                                 "cpu2 329718 501 110213 8982011 3388 0 3509 305 44 11\n"
                                 "cpu3 332350 518 109656 8979822 3421 0 3489 300 0 0\n"
                                 "cpu4 100 0 100 5000 0 0 0 0 0 0\n"));
  const std::string d = "sys/devices/system/cpu/cpu4/";
  t.write(d + "topology/physical_package_id", "1\n");
  t.write(d + "topology/core_id", "0\n");
  t.write(d + "thermal_throttle/core_throttle_count", "7\n");
  t.write(d + "thermal_throttle/package_throttle_count", "9\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_cpu_core_throttles_total", {{"core", "0"}, {"package", "1"}}), 7);
  EXPECT_EQ(value_of(snap, "node_cpu_package_throttles_total", {{"package", "1"}}), 9);
}

TEST(CpuCollector, OfflinedCpuLosesThrottlesAndOnlinedRegainsThem) {
  TempFixture t;
  auto c = make_cpu(t.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  // Offlining cpu1 removes its topology and thermal_throttle directories;
  // cpu3 then gives core 1's count.
  const std::string cpu = "sys/devices/system/cpu/";
  t.write(cpu + "cpu3/thermal_throttle/core_throttle_count", "4\n");
  t.remove(cpu + "cpu1/topology");
  t.remove(cpu + "cpu1/thermal_throttle");
  t.write(cpu + "online", "0,2-3\n");
  const std::string cpu0 = "cpu0 331480 612 118922 8972004 3552 0 3944 301 44 36\n";
  const std::string cpu1 = "cpu1 335812 1020 112488 8978553 3419 0 3741 298 0 0\n";
  const std::string cpu23 =
      "cpu2 329718 501 110213 8982011 3388 0 3509 305 44 11\n"
      "cpu3 332350 518 109656 8979822 3421 0 3489 300 0 0\n";
  t.write("proc/stat", stat_with(cpu0 + cpu23));  // an offline CPU has no line
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_cpu_core_throttles_total", {{"core", "1"}, {"package", "0"}}), 4);
  // Back online with fresh files.
  t.write(cpu + "cpu1/topology/physical_package_id", "0\n");
  t.write(cpu + "cpu1/topology/core_id", "1\n");
  t.write(cpu + "cpu1/thermal_throttle/core_throttle_count", "2\n");
  t.write(cpu + "cpu1/thermal_throttle/package_throttle_count", "34\n");
  t.write(cpu + "online", "0-3\n");
  t.write("proc/stat", stat_with(cpu0 + cpu1 + cpu23));
  ASSERT_TRUE(collect_once(*c, snap, 3000));
  EXPECT_EQ(value_of(snap, "node_cpu_core_throttles_total", {{"core", "1"}, {"package", "0"}}), 2);
}

}  // namespace
}  // namespace llmon::collector
