// Parser for /proc/net/dev: two header lines, then "name: 8 receive and 8
// transmit counters" per interface (the kernel's dev_seq_show). Pure; the
// parsed names are views into the input text. Not /proc/net/snmp or netlink.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

// Column order of one line, as the kernel prints it.
enum NetDevField : size_t {
  kRxBytes, kRxPackets, kRxErrs, kRxDrop, kRxFifo, kRxFrame, kRxCompressed, kRxMulticast,
  kTxBytes, kTxPackets, kTxErrs, kTxDrop, kTxFifo, kTxColls, kTxCarrier, kTxCompressed,
  kNetDevFieldCount
};

struct NetDevLine {
  std::string_view name;  // points into the parsed text
  std::array<uint64_t, kNetDevFieldCount> v{};
};

// Fills out (cleared first; its capacity is reused). A line without a colon,
// with an empty name, fewer than 16 counters or a non-number is an error that
// names the line (node_exporter fails the collector the same way). Extra
// columns are ignored; blank lines are skipped.
Status parse_net_dev(std::string_view text, std::vector<NetDevLine>& out);
Expected<std::vector<NetDevLine>> parse_net_dev(std::string_view text);

}  // namespace llmon::procfs
