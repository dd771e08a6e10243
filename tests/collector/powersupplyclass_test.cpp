#include <gtest/gtest.h>

#include "collector/builtin.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::expect_family;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

// Whether one of the node_power_supply_info families (one per label set) has a
// series with exactly these labels (sorted by name).
bool has_info(const model::Snapshot& snap, const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& f : snap.families) {
    if (f.name != "node_power_supply_info" || f.label_names.size() != labels.size()) continue;
    for (const auto& s : f.series) {
      bool same = true;
      for (size_t i = 0; i < labels.size(); ++i)
        same = same && f.label_names[i] == labels[i].first && s.label_values[i] == labels[i].second;
      if (same) return true;
    }
  }
  return false;
}

TEST(PowerSupplyClassCollector, FixtureValues) {
  auto c = make_powersupplyclass(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  expect_family(snap, "node_power_supply_energy_watthour", model::MetricType::kGauge,
                "energy_watthour value of /sys/class/power_supply/<power_supply>.");
  EXPECT_DOUBLE_EQ(value_of(snap, "node_power_supply_energy_watthour", {{"power_supply", "BAT0"}}), 31.28);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_power_supply_voltage_volt", {{"power_supply", "BAT1"}}), 12.893);
  EXPECT_EQ(value_of(snap, "node_power_supply_cyclecount", {{"power_supply", "BAT0"}}), 212);
  EXPECT_EQ(value_of(snap, "node_power_supply_online", {{"power_supply", "AC"}}), 1);
  EXPECT_EQ(series_count(snap, "node_power_supply_online"), 1u);
  // Two label sets (the AC adapter has only a type): both under one name.
  EXPECT_EQ(series_count(snap, "node_power_supply_info"), 3u);
  EXPECT_TRUE(has_info(snap, {{"power_supply", "AC"}, {"type", "Mains"}}));
  EXPECT_TRUE(has_info(snap, {{"capacity_level", "Full"},
                              {"manufacturer", "LGC"},
                              {"model_name", "5B10W51867"},
                              {"power_supply", "BAT1"},
                              {"serial_number", "1021"},
                              {"status", "Not charging"},
                              {"technology", "Li-poly"},
                              {"type", "Battery"}}));
}

TEST(PowerSupplyClassCollector, IgnoredSuppliesAndScales) {
  TempFixture fx({});
  fx.write("sys/class/power_supply/hidpp_battery_0/type", "Battery\n");
  fx.write("sys/class/power_supply/hidpp_battery_0/scope", "Device\n");
  fx.write("sys/class/power_supply/hidpp_battery_0/temp", "215\n");
  fx.write("sys/class/power_supply/hidpp_battery_0/current_now", "-1530000\n");
  fx.write("sys/class/power_supply/AC/type", "Mains\n");
  auto ctx = fx.context();
  ctx.set_option(flag::kCollectorPowersupplyIgnoredSupplies, "^AC$");
  auto c = make_powersupplyclass(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_DOUBLE_EQ(value_of(snap, "node_power_supply_temp_celsius", {{"power_supply", "hidpp_battery_0"}}), 21.5);
  EXPECT_DOUBLE_EQ(value_of(snap, "node_power_supply_current_ampere", {{"power_supply", "hidpp_battery_0"}}), -1.53);
  EXPECT_TRUE(has_info(snap, {{"power_supply", "hidpp_battery_0"}, {"scope", "Device"}, {"type", "Battery"}}));
  EXPECT_EQ(series_count(snap, "node_power_supply_info"), 1u);  // AC ignored
}

TEST(PowerSupplyClassCollector, NoClassIsNoDataAndBadValueFails) {
  TempFixture fx({});
  auto c = make_powersupplyclass(fx.context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.is_no_data()) << s.message();
  fx.write("sys/class/power_supply/BAT0/capacity", "full\n");
  s = collect_once(*c, snap, 2000);
  ASSERT_FALSE(s);
  EXPECT_FALSE(s.is_no_data());
  EXPECT_NE(s.message().find("BAT0/capacity"), std::string::npos) << s.message();
  EXPECT_EQ(snap.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
