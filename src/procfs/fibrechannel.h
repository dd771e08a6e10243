// /sys/class/fc_host/<host>/ as prometheus/procfs (sysfs/class_fibrechannel.go,
// the version node_exporter 1.5 is built with) reads it: the text attributes of
// node_fibrechannel_info (WWNs and the port id without their "0x") and the
// statistics/ counters (Go's ParseUint(s, 0, 64); all ones means the HBA does
// not implement the counter). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace llmon::procfs {

struct FcAttribute {
  std::string_view file;  // also node_fibrechannel_info's label
  bool hex_prefixed;      // "0x..." in sysfs, the label drops the first two characters
};

struct FcCounter {
  std::string_view file;    // in statistics/
  std::string_view metric;  // family name after "node_fibrechannel_"
  std::string_view help;
};

// The info attributes, in procfs' reading order (fc_host, the host's name, is not a file).
std::span<const FcAttribute> fc_attributes();
std::span<const FcCounter> fc_counters();
// A label value from an attribute's text: trimmed, and for hex_prefixed ones
// without its first two characters when longer than two.
std::string fc_attribute_value(const FcAttribute& a, std::string_view text);
// A statistics file's value; nullopt when it is not an unsigned integer.
std::optional<uint64_t> parse_fc_counter(std::string_view text);
// Whether a counter value means "not implemented" (0xffffffffffffffff).
inline bool fc_counter_unimplemented(uint64_t v) {
  return v == ~uint64_t{0};
}

}  // namespace llmon::procfs
