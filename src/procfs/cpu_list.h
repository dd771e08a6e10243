// Parser for the kernel's CPU list format ("0-3,8,10-11"), as found in
// /sys/devices/system/cpu/{isolated,online,offline}. Pure; no I/O.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

// CPU numbers in the order listed; surrounding whitespace and empty items are
// ignored, so "" and "\n" give an empty list. A bad number or range ("3-1",
// "a", "1-2-3") is an error.
Expected<std::vector<uint32_t>> parse_cpu_list(std::string_view text);

}  // namespace llmon::procfs
