// /proc/<pid>/net/tcp and tcp6: the TCP sockets of a network namespace
// (proc(5), "tcp"). Pure: parses the text; callers read the files.
// Each row: "sl local_address rem_address st ... uid timeout inode ...",
// addresses as hex in the kernel's byte order (IPv4: one 32-bit word as
// printed by %08X of the network-order value, so 0100007F is 127.0.0.1;
// IPv6: four such words) and the port in hex.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::procfs {

struct TcpSocket {
  std::string local_address;  // "127.0.0.1", "0.0.0.0", "::1", "::", "fe80::1"
  uint16_t local_port = 0;
  int state = 0;  // 0x0A is LISTEN
  uint64_t inode = 0;
  bool v6 = false;
};

inline constexpr int kTcpListen = 0x0A;

// Rows that do not parse are skipped (the header line among them).
std::vector<TcpSocket> parse_net_tcp(std::string_view text, bool v6);

// "socket:[12345]" (a /proc/<pid>/fd link target) -> 12345; 0 otherwise.
uint64_t socket_inode(std::string_view link);

// "32768\t60999" (/proc/sys/net/ipv4/ip_local_port_range) -> {32768, 60999}.
bool parse_port_range(std::string_view text, uint16_t& lo, uint16_t& hi);

}  // namespace llmon::procfs
