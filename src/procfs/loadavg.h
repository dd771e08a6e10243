// Parser for /proc/loadavg: "0.21 0.37 0.39 1/719 19737". Pure.
#pragma once

#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct LoadAvg {
  double load1 = 0, load5 = 0, load15 = 0;
};

Expected<LoadAvg> parse_loadavg(std::string_view text);

}  // namespace llmon::procfs
