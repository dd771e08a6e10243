#include "procfs/power_supply.h"

#include "go/strconv.h"
#include "procfs/thermal.h"

namespace llmon::procfs {
namespace {

constexpr double kMicro = 1e6;  // node_exporter divides micro-units by 1e6
constexpr double kDeci = 10.0;  // and tenths of a degree by 10.0

constexpr PowerSupplyValue kValues[] = {
    {"authentic", "authentic", 1},
    {"calibrate", "calibrate", 1},
    {"capacity", "capacity", 1},
    {"capacity_alert_max", "capacity_alert_max", 1},
    {"capacity_alert_min", "capacity_alert_min", 1},
    {"cycle_count", "cyclecount", 1},
    {"online", "online", 1},
    {"present", "present", 1},
    {"time_to_empty_now", "time_to_empty_seconds", 1},
    {"time_to_full_now", "time_to_full_seconds", 1},
    {"current_boot", "current_boot", kMicro},
    {"current_max", "current_max", kMicro},
    {"current_now", "current_ampere", kMicro},
    {"energy_empty", "energy_empty", kMicro},
    {"energy_empty_design", "energy_empty_design", kMicro},
    {"energy_full", "energy_full", kMicro},
    {"energy_full_design", "energy_full_design", kMicro},
    {"energy_now", "energy_watthour", kMicro},
    {"voltage_boot", "voltage_boot", kMicro},
    {"voltage_max", "voltage_max", kMicro},
    {"voltage_max_design", "voltage_max_design", kMicro},
    {"voltage_min", "voltage_min", kMicro},
    {"voltage_min_design", "voltage_min_design", kMicro},
    {"voltage_now", "voltage_volt", kMicro},
    {"voltage_ocv", "voltage_ocv", kMicro},
    {"charge_control_limit", "charge_control_limit", kMicro},
    {"charge_control_limit_max", "charge_control_limit_max", kMicro},
    {"charge_counter", "charge_counter", kMicro},
    {"charge_empty", "charge_empty", kMicro},
    {"charge_empty_design", "charge_empty_design", kMicro},
    {"charge_full", "charge_full", kMicro},
    {"charge_full_design", "charge_full_design", kMicro},
    {"charge_now", "charge_ampere", kMicro},
    {"charge_term_current", "charge_term_current", kMicro},
    {"constant_charge_current", "constant_charge_current", kMicro},
    {"constant_charge_current_max", "constant_charge_current_max", kMicro},
    {"constant_charge_voltage", "constant_charge_voltage", kMicro},
    {"constant_charge_voltage_max", "constant_charge_voltage_max", kMicro},
    {"precharge_current", "precharge_current", kMicro},
    {"input_current_limit", "input_current_limit", kMicro},
    {"power_now", "power_watt", kMicro},
    {"temp", "temp_celsius", kDeci},
    {"temp_alert_max", "temp_alert_max_celsius", kDeci},
    {"temp_alert_min", "temp_alert_min_celsius", kDeci},
    {"temp_ambient", "temp_ambient_celsius", kDeci},
    {"temp_ambient_max", "temp_ambient_max_celsius", kDeci},
    {"temp_ambient_min", "temp_ambient_min_celsius", kDeci},
    {"temp_max", "temp_max_celsius", kDeci},
    {"temp_min", "temp_min_celsius", kDeci},
};

constexpr PowerSupplyLabel kLabels[] = {
    {"capacity_level", "capacity_level"},
    {"charge_type", "charge_type"},
    {"health", "health"},
    {"manufacturer", "manufacturer"},
    {"model_name", "model_name"},
    {"serial_number", "serial_number"},
    {"status", "status"},
    {"technology", "technology"},
    {"scope", "scope"},
    {"type", "type"},
    {"usb_type", "usb_type"},
};

}  // namespace

std::span<const PowerSupplyValue> power_supply_values() {
  return kValues;
}
std::span<const PowerSupplyLabel> power_supply_labels() {
  return kLabels;
}

Expected<int64_t> parse_power_supply_int(std::string_view text, std::string_view what) {
  std::string_view t = sysfs_trimmed(text);
  auto v = go::parse_int(t);
  if (!v) return Status::error(std::string(what) + ": not an integer: \"" + std::string(t) + "\"");
  return *v;
}

}  // namespace llmon::procfs
