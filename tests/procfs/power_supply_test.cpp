#include "procfs/power_supply.h"

#include <gtest/gtest.h>

#include <set>

namespace llmon::procfs {
namespace {

const PowerSupplyValue* value_for(std::string_view file) {
  for (const auto& v : power_supply_values())
    if (v.file == file) return &v;
  return nullptr;
}

TEST(PowerSupply, FilesToFamiliesAndScales) {
  ASSERT_NE(value_for("current_now"), nullptr);
  EXPECT_EQ(value_for("current_now")->metric, "current_ampere");
  EXPECT_EQ(value_for("current_now")->divisor, 1e6);
  EXPECT_EQ(value_for("energy_now")->metric, "energy_watthour");
  EXPECT_EQ(value_for("cycle_count")->metric, "cyclecount");
  EXPECT_EQ(value_for("cycle_count")->divisor, 1);
  EXPECT_EQ(value_for("temp")->metric, "temp_celsius");
  EXPECT_EQ(value_for("temp")->divisor, 10);
  EXPECT_EQ(value_for("time_to_empty_now")->metric, "time_to_empty_seconds");
  EXPECT_EQ(value_for("charge_avg"), nullptr);  // not in node_exporter 1.5
  std::set<std::string_view> metrics, files;
  for (const auto& v : power_supply_values()) {
    EXPECT_TRUE(metrics.insert(v.metric).second) << v.metric;
    EXPECT_TRUE(files.insert(v.file).second) << v.file;
  }
  for (const auto& l : power_supply_labels()) EXPECT_TRUE(files.insert(l.file).second) << l.file;
}

TEST(PowerSupply, IntegersAsGoParseInt) {
  EXPECT_EQ(*parse_power_supply_int("12207000\n", "voltage_now"), 12207000);
  EXPECT_EQ(*parse_power_supply_int("-1530000\n", "current_now"), -1530000);  // discharging
  EXPECT_EQ(*parse_power_supply_int("0x10", "capacity"), 16);
  auto bad = parse_power_supply_int("Full\n", "BAT0/capacity");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("BAT0/capacity"), std::string::npos);
}

}  // namespace
}  // namespace llmon::procfs
