// Parser for /proc/net/udp and /proc/net/udp6 (a header line, then one line
// per socket: "142: 3500007F:0035 00000000:0000 07 00000000:00000000 ..."),
// summed as procfs 0.8's NetUDPSummary does for node_exporter 1.5's
// udp_queues collector. Pure.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct SocketQueues {
  uint64_t tx_queue = 0, rx_queue = 0;  // sums over the sockets, bytes
  uint64_t sockets = 0;
};

// The first line is the header and is not read. A socket line with fewer
// than 8 fields, or whose sl, addresses, ports, state, queues or uid do not
// parse (procfs checks them all), is an error naming `file` and the line.
Expected<SocketQueues> parse_socket_queues(std::string_view text, std::string_view file = "/proc/net/udp");

}  // namespace llmon::procfs
