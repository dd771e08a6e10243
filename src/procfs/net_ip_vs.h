// Parsers for IPVS (the kernel's L4 load balancer): /proc/net/ip_vs_stats
// (totals, hexadecimal) and /proc/net/ip_vs (virtual services and their real
// servers), as node_exporter 1.5 reads them through procfs 0.8 (ipvs.go).
// Pure; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct IpvsStats {
  uint64_t connections = 0, incoming_packets = 0, outgoing_packets = 0, incoming_bytes = 0, outgoing_bytes = 0;
};

// The third line's five hexadecimal totals.
Expected<IpvsStats> parse_ipvs_stats(std::string_view text, std::string_view file = "/proc/net/ip_vs_stats");

// One real server ("->" line) of a virtual service (the TCP/UDP/SCTP/FWM line
// above it). Addresses as Go's net.IP prints them; a firewall-mark service has
// no local address or port and its mark (as printed) in local_mark.
struct IpvsBackend {
  std::string local_address;
  uint16_t local_port = 0;
  std::string local_mark;
  std::string proto;
  std::string remote_address;
  uint16_t remote_port = 0;
  uint64_t weight = 0, active_conn = 0, inact_conn = 0;
};

// Header lines and lines too short to hold their fields are skipped, as procfs
// does; an address, port or number that does not parse is an error naming
// the file and line.
Expected<std::vector<IpvsBackend>> parse_ipvs_backends(std::string_view text,
                                                       std::string_view file = "/proc/net/ip_vs");

}  // namespace llmon::procfs
