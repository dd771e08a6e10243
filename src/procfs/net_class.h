// Attributes of one network interface from /sys/class/net/<iface>/<file>, as
// node_exporter 1.5 reads them (procfs sysfs/net_class.go): each file holds
// one value; integers use Go's base-prefix rules and text that does not parse
// reads as 0. Pure: the caller reads the files and hands over their text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "go/strconv.h"

namespace llmon::procfs {

struct NetClassIface {
  std::string name;
  // Text attributes ("" when the file is missing or unreadable).
  std::string address, broadcast, duplex, ifalias, operstate;
  // Integer attributes (nullopt when the file is missing or unreadable).
  std::optional<int64_t> addr_assign_type, carrier, carrier_changes, carrier_up_count, carrier_down_count, dev_id,
      dormant, flags, ifindex, iflink, link_mode, mtu, name_assign_type, netdev_group, speed, tx_queue_len, type;
};

// Clears every attribute, keeping string capacity (for reuse across cycles).
void reset(NetClassIface& iface);

// The attribute file names set_attribute() understands;
// there are kNetClassAttributeCount of them.
inline constexpr size_t kNetClassAttributeCount = 22;
std::span<const std::string_view> net_class_attribute_files();
// Index of `file` in net_class_attribute_files(), or kNetClassAttributeCount.
size_t net_class_attribute_index(std::string_view file);

// Stores the content of attribute `file` (surrounding whitespace is trimmed).
// Returns false when `file` is not an attribute we keep.
bool set_attribute(NetClassIface& iface, std::string_view file, std::string_view content);
// The same by index into net_class_attribute_files(); false when out of range.
bool set_attribute_at(NetClassIface& iface, size_t index, std::string_view content);

// Go's strconv.ParseInt(s, 0, 64): optional sign, 0x/0o/0b prefix or a leading
// 0 for octal, '_' between digits. nullopt on syntax or range errors.
inline std::optional<int64_t> parse_go_int(std::string_view s) { return go::parse_int(s); }

// Trims the ASCII whitespace Go's bytes.TrimSpace removes.
std::string_view trim_go_space(std::string_view s);

}  // namespace llmon::procfs
