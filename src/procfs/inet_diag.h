// Parser for the kernel's sock_diag answers to an INET_DIAG dump of TCP
// sockets (netlink, NETLINK_SOCK_DIAG): each datagram holds nlmsghdr +
// inet_diag_msg records and ends the dump with NLMSG_DONE. node_exporter 1.5's
// tcpstat (tcpstat_linux.go) counts the records per state and sums their
// idiag_rqueue / idiag_wqueue. Pure: bytes in, counts out; no socket here.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct TcpStates {
  // Records per idiag_state as node_exporter's tcpConnectionState numbers
  // them: 1 established .. 11 closing, 12 and 13 collide with its
  // rx_queued_bytes / tx_queued_bytes keys (bug-compatible), 0 and >13 unknown.
  std::array<double, 14> by_state{};
  double unknown = 0;
  double rx_queued_bytes = 0, tx_queued_bytes = 0;
  size_t records = 0;  // node_exporter writes the queue sums only when there was a record
  void merge(const TcpStates& o);
};

// Adds one datagram's records to out. done is set at NLMSG_DONE; an
// NLMSG_ERROR record is an error with the kernel's errno; a truncated record
// is an error.
Status parse_inet_diag_datagram(std::string_view datagram, TcpStates& out, bool& done);

// node_exporter's label value for a by_state index ("established", ...).
std::string_view tcp_state_name(size_t state);

}  // namespace llmon::procfs
