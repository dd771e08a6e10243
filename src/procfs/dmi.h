// /sys/class/dmi/id as prometheus/procfs (sysfs/class_dmi.go) reads it for
// node_exporter 1.5's node_dmi_info: which attribute file feeds which label,
// and a label value from a file's text. Pure.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace llmon::procfs {

struct DmiAttribute {
  std::string_view file;   // e.g. "sys_vendor"
  std::string_view label;  // e.g. "system_vendor"
};

// The attributes node_dmi_info carries, in label-name order.
std::span<const DmiAttribute> dmi_attributes();
// Index into dmi_attributes() of `file`, or dmi_attributes().size() (chassis_type,
// modalias, uevent and the rest are not labels).
size_t dmi_attribute_index(std::string_view file);
// The value as a label: whitespace-trimmed, invalid UTF-8 runs replaced by U+FFFD.
std::string dmi_value(std::string_view content);

}  // namespace llmon::procfs
