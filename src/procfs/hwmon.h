// Pure rules of node_exporter 1.5's hwmon collector (hwmon_linux.go) for
// /sys/class/hwmon: splitting attribute file names ("temp1_crit" -> temp, 1,
// crit), cleaning names, deriving the chip name from the device path, and
// mapping one sensor attribute to its metric family and unit scale.
// No I/O: collector/hwmon.cpp walks the tree and reads the files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmon::procfs {

// "<type><num>_<property>", e.g. "temp1_crit_alarm" -> {"temp", 1, "crit_alarm"}.
// Views point into the parsed name.
struct HwmonFilename {
  std::string_view type;
  int64_t num = 0;
  std::string_view property;  // empty for "pwm1", "beep_enable", ...
};

// Splits like the regexp ^(?P<type>[^0-9]+)(?P<id>[0-9]*)?(_(?P<property>.+))?$
// (leftmost-longest type); nullopt when the name does not match.
std::optional<HwmonFilename> parse_hwmon_filename(std::string_view name);
// True for the sensor types node_exporter reads: vrm, beep_enable,
// update_interval, in, cpu, fan, pwm, temp, curr, power, energy, humidity, intrusion.
bool is_hwmon_sensor_type(std::string_view type);
// Lower-cases, maps every char outside [a-z0-9:_] to '_', trims '_' at both ends.
std::string hwmon_clean_name(std::string_view s);
// Chip label from the resolved device path: "<parent>_<base>" cleaned
// ("/sys/devices/platform/coretemp.0" -> "platform_coretemp_0"), just the
// cleaned base when the parent cleans to nothing, "" when no name results.
std::string hwmon_chip_from_device_path(std::string_view resolved_path);

// How an attribute's raw text becomes the sample value.
struct HwmonMetric {
  std::string name;
  std::string help;
  bool counter = false;
  bool beep_enable = false;  // value is 1 if the raw text is exactly "1", else 0
  double mul = 1;            // value = raw * mul / div (the same operations
  double div = 1;            // node_exporter uses, so results match bit for bit)
};

// The metric family for attribute `element` (the property; "" for a bare file)
// of a sensor of `type`. has_bare tells whether the same sensor also has a bare
// file (then "input" is exported as "..._input"). nullopt when the attribute is
// not exported as a value (labels; properties of vrm/update_interval/beep_enable).
std::optional<HwmonMetric> hwmon_metric_for(std::string_view type, std::string_view element, bool has_bare);

// A sensor file's text as a number: trailing/leading '\n' trimmed, then a
// strict float parse (no surrounding spaces). nullopt when not a number.
std::optional<double> parse_hwmon_value(std::string_view raw);
// The value after scaling, per hwmon_metric_for.
double hwmon_scaled(const HwmonMetric& m, double raw);

}  // namespace llmon::procfs
