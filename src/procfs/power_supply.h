// /sys/class/power_supply/<supply>/ attributes as prometheus/procfs
// (sysfs/class_power_supply.go) reads them for node_exporter 1.5's
// powersupplyclass collector: which file feeds which node_power_supply_
// family (and its scale: micro-units to units, tenths of a degree to
// degrees) or which node_power_supply_info label. Values are Go's
// ParseInt(s, 0, 64) of the trimmed text. Pure.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct PowerSupplyValue {
  std::string_view file;    // e.g. "current_now"
  std::string_view metric;  // family name after "node_power_supply_", e.g. "current_ampere"
  double divisor;           // 1, 1e6 or 10 (value = attribute / divisor, as node_exporter)
};

struct PowerSupplyLabel {
  std::string_view file;   // e.g. "model_name"
  std::string_view label;  // node_power_supply_info's label
};

std::span<const PowerSupplyValue> power_supply_values();
// The info labels ("power_supply", the supply's name, is not a file).
std::span<const PowerSupplyLabel> power_supply_labels();

// A numeric attribute; the error names `what` (the file).
Expected<int64_t> parse_power_supply_int(std::string_view text, std::string_view what);

}  // namespace llmon::procfs
