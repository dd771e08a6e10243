// Parser for /sys/devices/system/clocksource/clocksource<N>/{available,current}_clocksource
// (prometheus/procfs sysfs/clocksource.go). Pure; the result views the input
// texts and is valid while they are.
#pragma once

#include <string_view>
#include <vector>

namespace llmon::procfs {

struct Clocksource {
  std::vector<std::string_view> available;  // "tsc hpet acpi_pm \n" -> {tsc, hpet, acpi_pm}
  std::string_view current;                 // whitespace-trimmed
};

// Fills out (reusing its storage).
void parse_clocksource(std::string_view available_text, std::string_view current_text, Clocksource& out);

}  // namespace llmon::procfs
