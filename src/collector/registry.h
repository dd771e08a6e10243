// The explicit list of built-in collectors (builtin.cpp, one line each) and
// the selection logic behind --collector.<name> / --no-collector.<name>.
// The list is immutable data; no static registration tricks.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/collector.h"

namespace llmon::collector {

struct CollectorInfo {
  std::string_view name;
  bool enabled_by_default;
  std::string_view help;
  CollectorFactory make;
};

std::span<const CollectorInfo> builtin_collectors();
const CollectorInfo* find_collector(std::string_view name);

}  // namespace llmon::collector
