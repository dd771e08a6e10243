#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "no_data_check.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

TEST(RaplCollector, FixtureValues) {
  auto c = make_rapl(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  const std::string dir = fixture("sys/class/powercap/");
  expect_family(snap, "node_rapl_package_joules_total", model::MetricType::kCounter,
                "Current RAPL package value in joules");
  expect_family(snap, "node_rapl_dram_joules_total", model::MetricType::kCounter, "Current RAPL dram value in joules");
  EXPECT_EQ(series_count(snap, "node_rapl_package_joules_total"), 3u);
  EXPECT_EQ(series_count(snap, "node_rapl_dram_joules_total"), 2u);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_rapl_package_joules_total", {{"index", "1"}, {"path", dir + "intel-rapl:1"}}),
                   45592.034711);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_rapl_dram_joules_total", {{"index", "0"}, {"path", dir + "intel-rapl:0:0"}}),
                   9127.461098);
  // intel-rapl-mmio:0 is also "package-0": same index, another path.
  EXPECT_DOUBLE_EQ(
      value_of(snap, "node_rapl_package_joules_total", {{"index", "0"}, {"path", dir + "intel-rapl-mmio:0"}}),
      48213.911876);
}

TEST(RaplCollector, NoPowercapIsNoData) {
  testing::expect_no_data_without_files(make_rapl);
}

TEST(RaplCollector, ZonesAreReadEveryCycleAndABadOneFailsAfterTheEarlierOnes) {
  TempFixture fx({});
  fx.write("sys/class/powercap/intel-rapl/enabled", "1\n");  // the control type: no name, not a zone
  fx.write("sys/class/powercap/intel-rapl:0/name", "package-0\n");
  fx.write("sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  fx.write("sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
  fx.write("sys/class/powercap/intel-rapl:1/name", "package-1\n");
  fx.write("sys/class/powercap/intel-rapl:1/max_energy_range_uj", "262143328850\n");
  fx.write("sys/class/powercap/intel-rapl:1/energy_uj", "2500000\n");
  auto c = make_rapl(fx.context());
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "node_rapl_package_joules_total"), 2u);
  const std::string p0 = fx.path("sys/class/powercap/intel-rapl:0");
  EXPECT_EQ(value_of(snap, "node_rapl_package_joules_total", {{"index", "0"}, {"path", p0}}), 1);

  fx.write("sys/class/powercap/intel-rapl:0/energy_uj", "3000000\n");
  fx.write("sys/class/powercap/intel-rapl:1/energy_uj", "lots\n");
  Status s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find("intel-rapl:1/energy_uj"), std::string::npos) << s.message();
  EXPECT_EQ(value_of(snap, "node_rapl_package_joules_total", {{"index", "0"}, {"path", p0}}), 3);
  EXPECT_EQ(series_count(snap, "node_rapl_package_joules_total"), 1u);
}

TEST(RaplCollector, MissingMaxEnergyRangeIsNoData) {
  TempFixture fx({});
  fx.write("sys/class/powercap/intel-rapl:0/name", "package-0\n");
  fx.write("sys/class/powercap/intel-rapl:0/energy_uj", "1\n");
  auto c = make_rapl(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
}

TEST(RaplCollector, ZoneLabelPutsEveryZoneInOneFamily) {
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorRaplEnableZoneLabel, "true");
  auto c = make_rapl(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  expect_family(snap, "node_rapl_joules_total", model::MetricType::kCounter, "Current RAPL value in joules");
  EXPECT_EQ(series_count(snap, "node_rapl_joules_total"), 5u);
  EXPECT_EQ(snap.find("node_rapl_package_joules_total"), nullptr);
  EXPECT_DOUBLE_EQ(
      value_of(snap, "node_rapl_joules_total",
               {{"index", "1"}, {"path", fixture("sys/class/powercap/intel-rapl:1:0")}, {"rapl_zone", "dram"}}),
      8874.120555);
}

}  // namespace
}  // namespace llmon::collector
