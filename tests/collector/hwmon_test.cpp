// hwmon collector on the shared fixture tree (tests/fixtures/sys/class/hwmon,
// the same tree node_exporter reads in the differential test) and on small
// trees built per test for naming fallbacks and broken files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "collector/builtin.h"
#include "support/test_paths.h"

namespace llmon::collector {
namespace {

namespace fs = std::filesystem;

class TempTree {
 public:
  TempTree() {
    char tmpl[] = "/tmp/llmon-hwmon-test-XXXXXX";
    root_ = ::mkdtemp(tmpl);
  }
  ~TempTree() { fs::remove_all(root_); }
  void file(const std::string& rel, const std::string& content) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << content;
  }
  void dir(const std::string& rel) { fs::create_directories(root_ / rel); }
  void link(const std::string& target, const std::string& rel) {
    fs::create_directories((root_ / rel).parent_path());
    fs::create_symlink(target, root_ / rel);
  }
  void remove(const std::string& rel) { fs::remove_all(root_ / rel); }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

std::unique_ptr<Collector> make_at(const std::string& sys_root) {
  CollectorContext ctx;
  ctx.fs.sys_root = sys_root;
  return make_hwmon(ctx);
}

Status run(Collector& c, model::Snapshot& snap, int64_t ts = 1000) {
  model::SnapshotBuilder b(snap, ts);
  Status s = c.collect(b);
  b.finish();
  return s;
}

double value(const model::Snapshot& s, std::string_view name, std::string_view chip, std::string_view sensor) {
  const model::Series* v = s.find_series(name, {{"chip", chip}, {"sensor", sensor}});
  EXPECT_NE(v, nullptr) << name << "{chip=" << chip << ",sensor=" << sensor << "}";
  return v ? v->value : -999;
}

TEST(HwmonCollector, FixtureTree) {
  auto c = make_at(testing::fixture("sys"));
  model::Snapshot s;
  Status st = run(*c, s);
  ASSERT_TRUE(st) << st.message();

  // Chip names from the resolved device path; human names annotated.
  ASSERT_NE(s.find_series("node_hwmon_chip_names", {{"chip", "platform_coretemp_0"}, {"chip_name", "coretemp"}}),
            nullptr);
  ASSERT_NE(s.find_series("node_hwmon_chip_names", {{"chip", "pci0000:00_0000:00:18_3"}, {"chip_name", "k10temp"}}),
            nullptr);
  ASSERT_NE(s.find_series("node_hwmon_chip_names", {{"chip", "0000:42:00_0_0000:43:00_0"}, {"chip_name", "amdgpu"}}),
            nullptr);
  ASSERT_NE(s.find_series("node_hwmon_chip_names", {{"chip", "nvme_nvme0"}, {"chip_name", "nvme"}}), nullptr);
  ASSERT_NE(s.find_series("node_hwmon_chip_names", {{"chip", "lnxsybus:00_acpi000d:00"}, {"chip_name", "power_meter"}}),
            nullptr);
  EXPECT_EQ(s.find("node_hwmon_chip_names")->series.size(), 9u);

  // Labels verbatim (not cleaned), as node_exporter 1.5.
  ASSERT_NE(s.find_series("node_hwmon_sensor_label",
                          {{"chip", "platform_coretemp_0"}, {"label", "Package id 0"}, {"sensor", "temp1"}}),
            nullptr);
  ASSERT_NE(
      s.find_series("node_hwmon_sensor_label", {{"chip", "nvme_nvme0"}, {"label", "Sensor 1"}, {"sensor", "temp2"}}),
      nullptr);
  EXPECT_EQ(s.find("node_hwmon_sensor_label")->label_names, (std::vector<std::string>{"chip", "label", "sensor"}));

  // Temperatures: millidegrees -> Celsius; crit_alarm keeps node_exporter's _celsius quirk.
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "platform_coretemp_0", "temp1"), 46);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_crit_celsius", "platform_coretemp_0", "temp1"), 100);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_max_celsius", "platform_coretemp_0", "temp1"), 84);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_crit_alarm_celsius", "platform_coretemp_0", "temp5"), 0.001);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "nvme_nvme0", "temp1"), 38.85);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_min_celsius", "nvme_nvme0", "temp1"), -273.15);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_alarm", "nvme_nvme0", "temp1"), 0);
  // The ACPI zone's hwmon device is the thermal zone, whose "temp" file reads as sensor temp0.
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "thermal_thermal_zone0", "temp0"), 27.8);

  // Fans, voltages, current, power, energy.
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_fan_rpm", "platform_nct6775_656", "fan1"), 1205);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_fan_min_rpm", "platform_nct6775_656", "fan1"), 300);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_fan_alarm", "platform_nct6775_656", "fan2"), 1);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_fan_target_rpm", "0000:42:00_0_0000:43:00_0", "fan1"), 1250);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_in_volts", "platform_nct6775_656", "in0"), 1.016);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_in_alarm", "platform_nct6775_656", "in1"), 1);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_intrusion_alarm", "platform_nct6775_656", "intrusion0"), 1);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_beep_enabled", "platform_nct6775_656", "beep_enable0"), 0);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_curr_amps", "i2c_1_1_0040", "curr1"), 1.215);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_power_watt", "i2c_1_1_0040", "power1"), 14.76);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_power_average_watt", "0000:42:00_0_0000:43:00_0", "power1"), 39);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_power_accuracy", "lnxsybus:00_acpi000d:00", "power1"), 0.095);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_power_average_interval_seconds", "lnxsybus:00_acpi000d:00", "power1"), 1);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_energy_joule_total", "platform_amd_energy_0", "energy3"), 98765.4321);
  EXPECT_EQ(s.find("node_hwmon_energy_joule_total")->type, model::MetricType::kCounter);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_pwm", "0000:42:00_0_0000:43:00_0", "pwm1"), 77);

  // Text attributes and unknown sensor types are not exported.
  EXPECT_EQ(s.find("node_hwmon_power_model_number"), nullptr);
  EXPECT_EQ(s.find("node_hwmon_power_oem_info"), nullptr);
  EXPECT_EQ(s.find("node_hwmon_freq"), nullptr);

  // Series of a family come sorted by (chip, sensor), as client_golang emits them.
  const model::Family* temps = s.find("node_hwmon_temp_celsius");
  ASSERT_NE(temps, nullptr);
  for (size_t i = 1; i < temps->series.size(); ++i)
    EXPECT_LT(temps->series[i - 1].label_values, temps->series[i].label_values);
}

TEST(HwmonCollector, ChipNameFallbacksAndDuplicates) {
  TempTree t;
  // A plain hwmon directory without device or name: named after itself.
  t.file("class/hwmon/hwmon6/temp1_input", "20000\n");
  // Dangling device link and an empty name file: still named after itself.
  t.link("/nonexistent", "class/hwmon/hwmon8/device");
  t.file("class/hwmon/hwmon8/name", "\n");
  t.file("class/hwmon/hwmon8/temp1_input", "1000\n");
  // Two virtual chips with the same name: the first (hwmon5) wins the duplicates.
  t.file("devices/virtual/hwmon/hwmon5/name", "My Chip\n");
  t.file("devices/virtual/hwmon/hwmon5/temp1_input", "30000\n");
  t.link("../../devices/virtual/hwmon/hwmon5", "class/hwmon/hwmon5");
  t.file("devices/virtual/hwmon/hwmon7/name", "My Chip\n");
  t.file("devices/virtual/hwmon/hwmon7/temp1_input", "31000\n");
  t.file("devices/virtual/hwmon/hwmon7/temp2_input", "32000\n");
  t.file("devices/virtual/hwmon/hwmon7/temp2_label", "Bad\xff\xfeLabel\n");
  t.link("../../devices/virtual/hwmon/hwmon7", "class/hwmon/hwmon7");
  // Not a directory: ignored.
  t.file("class/hwmon/stray", "x\n");

  auto c = make_at(t.path());
  model::Snapshot s;
  ASSERT_TRUE(run(*c, s));
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "hwmon6", "temp1"), 20);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "hwmon8", "temp1"), 1);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "my_chip", "temp1"), 30);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "my_chip", "temp2"), 32);
  EXPECT_EQ(s.find("node_hwmon_temp_celsius")->series.size(), 4u);
  EXPECT_EQ(s.find("node_hwmon_chip_names")->series.size(), 1u);  // hwmon8's empty name gives none
  EXPECT_NE(s.find_series("node_hwmon_sensor_label",
                          {{"chip", "my_chip"}, {"label", "Bad\xef\xbf\xbdLabel"}, {"sensor", "temp2"}}),
            nullptr);
}

TEST(HwmonCollector, BrokenFilesAreSkipped) {
  TempTree t;
  const std::string d = "class/hwmon/hwmon0/";
  t.file(d + "name", "weird\n");
  t.file(d + "temp1_input", "abc\n");  // not a number
  t.file(d + "temp2_input", "");       // empty
  t.file(d + "temp3_input", "4");      // truncated, still a number
  t.file(d + "temp4_label", "\n");     // empty label: exported as ""
  t.file(d + "temp4_input", "-5000\n");
  t.dir(d + "power");  // a directory named like a sensor
  t.file(d + "uevent", "\n");
  auto c = make_at(t.path());
  model::Snapshot s;
  ASSERT_TRUE(run(*c, s));
  EXPECT_EQ(s.find_series("node_hwmon_temp_celsius", {{"sensor", "temp1"}}), nullptr);
  EXPECT_EQ(s.find_series("node_hwmon_temp_celsius", {{"sensor", "temp2"}}), nullptr);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "weird", "temp3"), 0.004);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "weird", "temp4"), -5);
  EXPECT_NE(s.find_series("node_hwmon_sensor_label", {{"chip", "weird"}, {"label", ""}, {"sensor", "temp4"}}), nullptr);
  EXPECT_EQ(s.find("node_hwmon_power_watt"), nullptr);
}

TEST(HwmonCollector, RereadsValuesAndNoticesNewChips) {
  TempTree t;
  t.file("class/hwmon/hwmon0/name", "a\n");
  t.file("class/hwmon/hwmon0/temp1_input", "10000\n");
  auto c = make_at(t.path());
  model::Snapshot s;
  ASSERT_TRUE(run(*c, s, 1000));
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "a", "temp1"), 10);

  // Same file rewritten in place: the kept descriptor sees the new value.
  { std::ofstream(t.path() + "/class/hwmon/hwmon0/temp1_input") << "11000\n"; }
  t.file("class/hwmon/hwmon1/name", "b\n");
  t.file("class/hwmon/hwmon1/temp1_input", "20000\n");
  ASSERT_TRUE(run(*c, s, 2000));
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "a", "temp1"), 11);
  EXPECT_DOUBLE_EQ(value(s, "node_hwmon_temp_celsius", "b", "temp1"), 20);

  t.remove("class/hwmon/hwmon1");
  ASSERT_TRUE(run(*c, s, 3000));
  EXPECT_EQ(s.find_series("node_hwmon_temp_celsius", {{"chip", "b"}}), nullptr);
  EXPECT_EQ(s.find("node_hwmon_temp_celsius")->series.size(), 1u);
}

TEST(HwmonCollector, NoHwmonClassIsAFailure) {
  TempTree t;
  auto c = make_at(t.path());
  model::Snapshot s;
  Status st = run(*c, s);
  ASSERT_FALSE(st);  // node_exporter reports success 0 (ErrNoData) too
  EXPECT_NE(st.message().find("class/hwmon"), std::string::npos);
  EXPECT_TRUE(st.is_no_data());
  EXPECT_EQ(s.series_count(), 0u);
}

}  // namespace
}  // namespace llmon::collector
