// Parsers for the one-value files of /sys/class/thermal (thermal_zone<N>/temp,
// cooling_device<N>/{cur,max}_state, type) with the rules of prometheus/procfs
// as node_exporter 1.5 uses it: values whitespace-trimmed, integers base-10
// int64. Pure; collector/thermal_zone.cpp does the reading.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

// Whitespace-trimmed content of a sysfs attribute (procfs util.SysReadFile).
std::string_view sysfs_trimmed(std::string_view text);
// A trimmed base-10 int64 ("-1" is valid: intel_powerclamp's cur_state).
// The error names `what` (the file).
Expected<int64_t> parse_sysfs_int(std::string_view text, std::string_view what);
// A zone's temp file (millidegrees Celsius) in degrees Celsius.
Expected<double> parse_thermal_temp_celsius(std::string_view text, std::string_view what);

}  // namespace llmon::procfs
