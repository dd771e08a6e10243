#include "procfs/hwmon.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(HwmonFilename, SplitsTypeNumberProperty) {
  auto f = parse_hwmon_filename("temp1_crit_alarm");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, "temp");
  EXPECT_EQ(f->num, 1);
  EXPECT_EQ(f->property, "crit_alarm");

  f = parse_hwmon_filename("pwm12");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, "pwm");
  EXPECT_EQ(f->num, 12);
  EXPECT_EQ(f->property, "");

  f = parse_hwmon_filename("temp01_input");  // the sensor key becomes temp1
  ASSERT_TRUE(f);
  EXPECT_EQ(f->num, 1);
}

TEST(HwmonFilename, LongestTypeWins) {
  auto f = parse_hwmon_filename("update_interval");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, "update_interval");
  EXPECT_EQ(f->num, 0);
  EXPECT_EQ(f->property, "");
  f = parse_hwmon_filename("beep_enable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, "beep_enable");
}

TEST(HwmonFilename, BacktracksToAShorterType) {
  // "temp_x1y": the longest type "temp_x" leaves "1y", which does not match;
  // the regexp then settles on type "temp" and property "x1y".
  auto f = parse_hwmon_filename("temp_x1y");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, "temp");
  EXPECT_EQ(f->num, 0);
  EXPECT_EQ(f->property, "x1y");
}

TEST(HwmonFilename, RejectsNonMatching) {
  EXPECT_FALSE(parse_hwmon_filename(""));
  EXPECT_FALSE(parse_hwmon_filename("1temp"));
  EXPECT_FALSE(parse_hwmon_filename("temp1x"));
  EXPECT_FALSE(parse_hwmon_filename("temp1_"));                          // property needs at least one char
  EXPECT_FALSE(parse_hwmon_filename("temp99999999999999999999_input"));  // id overflows
}

TEST(HwmonFilename, SensorTypes) {
  for (auto t : {"vrm", "beep_enable", "update_interval", "in", "cpu", "fan", "pwm", "temp", "curr", "power", "energy",
                 "humidity", "intrusion"})
    EXPECT_TRUE(is_hwmon_sensor_type(t)) << t;
  for (auto t : {"freq", "name", "uevent", "device", "power_dpm_state", ""}) EXPECT_FALSE(is_hwmon_sensor_type(t)) << t;
}

TEST(HwmonCleanName, LowersReplacesTrims) {
  EXPECT_EQ(hwmon_clean_name("coretemp\n"), "coretemp");
  EXPECT_EQ(hwmon_clean_name("My Chip"), "my_chip");
  EXPECT_EQ(hwmon_clean_name("0000:00:18.3"), "0000:00:18_3");
  EXPECT_EQ(hwmon_clean_name("__x__"), "x");
  EXPECT_EQ(hwmon_clean_name("\n"), "");
  EXPECT_EQ(hwmon_clean_name(""), "");
  // One '_' per character, not per byte; invalid bytes one each.
  EXPECT_EQ(hwmon_clean_name("a\xc3\xa9z"), "a_z");
  EXPECT_EQ(hwmon_clean_name("a\xff\xfez"), "a__z");
}

TEST(HwmonChipName, FromDevicePath) {
  EXPECT_EQ(hwmon_chip_from_device_path("/sys/devices/platform/coretemp.0"), "platform_coretemp_0");
  EXPECT_EQ(hwmon_chip_from_device_path("/sys/devices/pci0000:00/0000:00:18.3"), "pci0000:00_0000:00:18_3");
  EXPECT_EQ(hwmon_chip_from_device_path("/sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"), "nvme_nvme0");
  EXPECT_EQ(hwmon_chip_from_device_path("/coretemp.0"), "coretemp_0");  // no parent
  EXPECT_EQ(hwmon_chip_from_device_path("/"), "");
  EXPECT_EQ(hwmon_chip_from_device_path(""), "");
}

TEST(HwmonMetric, NamesUnitsAndHelp) {
  auto m = hwmon_metric_for("temp", "input", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_temp_celsius");
  EXPECT_EQ(m->help, "Hardware monitor for temperature (input)");
  EXPECT_DOUBLE_EQ(hwmon_scaled(*m, 45000), 45);

  m = hwmon_metric_for("temp", "crit_alarm", false);  // node_exporter's unit quirk, kept
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_temp_crit_alarm_celsius");

  m = hwmon_metric_for("temp", "", false);  // bare "temp3"
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_temp_celsius");
  EXPECT_EQ(m->help, "Hardware monitor for temperature (input)");

  m = hwmon_metric_for("temp", "input", true);  // beside a bare file
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_temp_input_celsius");

  m = hwmon_metric_for("temp", "type", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_temp_type");
  EXPECT_EQ(m->help, "Hardware monitor temp element type");

  m = hwmon_metric_for("fan", "min", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_fan_min_rpm");
  m = hwmon_metric_for("fan", "alarm", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_fan_alarm");
  EXPECT_EQ(m->help, "Hardware sensor alarm status (fan)");
  m = hwmon_metric_for("fan", "beep", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_fan_beep_enabled");
  m = hwmon_metric_for("fan", "pulses", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_fan_pulses");

  m = hwmon_metric_for("in", "input", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_in_volts");
  EXPECT_DOUBLE_EQ(hwmon_scaled(*m, 1050), 1.05);
  m = hwmon_metric_for("cpu", "vid", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_cpu_vid_volts");
  m = hwmon_metric_for("curr", "input", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_curr_amps");

  m = hwmon_metric_for("power", "average", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_power_average_watt");
  EXPECT_DOUBLE_EQ(hwmon_scaled(*m, 25000000), 25);
  m = hwmon_metric_for("power", "input", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_power_watt");
  m = hwmon_metric_for("power", "accuracy", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_power_accuracy");
  EXPECT_DOUBLE_EQ(hwmon_scaled(*m, 95000), 0.095);
  m = hwmon_metric_for("power", "average_interval_max", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_power_average_interval_max_seconds");

  m = hwmon_metric_for("energy", "input", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_energy_joule_total");
  EXPECT_TRUE(m->counter);
  EXPECT_DOUBLE_EQ(hwmon_scaled(*m, 123456789), 123.456789);

  m = hwmon_metric_for("humidity", "input", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_humidity");

  m = hwmon_metric_for("pwm", "", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_pwm");
  EXPECT_EQ(m->help, "Hardware monitor pwm element ");
}

TEST(HwmonMetric, SpecialSensors) {
  auto m = hwmon_metric_for("beep_enable", "", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_beep_enabled");
  EXPECT_EQ(hwmon_scaled(*m, 1), 1);
  EXPECT_EQ(hwmon_scaled(*m, 2), 0);
  m = hwmon_metric_for("update_interval", "", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_update_interval_seconds");
  EXPECT_DOUBLE_EQ(hwmon_scaled(*m, 1000), 1);
  m = hwmon_metric_for("vrm", "", false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "node_hwmon_voltage_regulator_version");
  EXPECT_FALSE(hwmon_metric_for("vrm", "x", false));
  EXPECT_FALSE(hwmon_metric_for("temp", "label", false));
}

TEST(HwmonValue, ParsesTrimmedNumbers) {
  EXPECT_EQ(parse_hwmon_value("45000\n"), 45000);
  EXPECT_EQ(parse_hwmon_value("-273150\n"), -273150);
  EXPECT_FALSE(parse_hwmon_value(""));
  EXPECT_FALSE(parse_hwmon_value("\n"));
  EXPECT_FALSE(parse_hwmon_value("abc\n"));
  EXPECT_FALSE(parse_hwmon_value(" 45000\n"));  // Go's ParseFloat rejects spaces too
  EXPECT_FALSE(
      parse_hwmon_value("450"
                        "00x"));
}

}  // namespace
}  // namespace llmon::procfs
