// Parser for /proc/net/arp ("IP address HW type Flags HW address Mask
// Device" header, then one line per neighbour entry), counted per device as
// node_exporter 1.5's arp_linux.go does. Pure; device names are views into
// the parsed text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct ArpDeviceCount {
  std::string_view device;
  uint64_t entries = 0;
};

// Fills out (cleared first) with one entry per device, in order of first
// appearance. Lines whose first field is "IP" (the header) are skipped; the
// device is a line's last field. A line with fewer than 6 fields (also a
// blank one) is an error naming `file` and the line, as node_exporter 1.5
// fails ("unexpected ARP table format").
Status parse_arp(std::string_view text, std::string_view file, std::vector<ArpDeviceCount>& out);
Expected<std::vector<ArpDeviceCount>> parse_arp(std::string_view text, std::string_view file = "/proc/net/arp");

}  // namespace llmon::procfs
