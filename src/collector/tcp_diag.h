// The tcpstat collector's socket source: an INET_DIAG dump of every TCP
// socket of one address family over NETLINK_SOCK_DIAG, as node_exporter 1.5
// asks the kernel (tcpstat_linux.go), behind an interface so tests feed
// recorded or made-up datagrams. Unlike node_exporter the request does not ask
// for INET_DIAG_INFO (struct tcp_info per socket): the queue sizes it sums
// are in the inet_diag_msg header either way (the kernel's tcp_diag_get_info
// fills them whether or not tcp_info is wanted), so the answer is smaller and
// cheaper to build.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "base/status.h"
#include "collector/collector.h"

namespace llmon::collector {

class TcpDiag {
 public:
  virtual ~TcpDiag() = default;
  // Sends the dump request for family (AF_INET, AF_INET6) and hands each
  // datagram of the answer to on_datagram, which sets done at NLMSG_DONE.
  using DatagramFn = std::function<Status(std::string_view datagram, bool& done)>;
  virtual Status dump(uint8_t family, const DatagramFn& on_datagram) = 0;
};

// The real one: a netlink socket per dump, receive timeout 5 s.
// with_tcp_info asks for INET_DIAG_INFO as node_exporter 1.5 does (for
// bench/tcpstat_bench.cpp's comparison; the collector does not).
std::unique_ptr<TcpDiag> make_netlink_tcp_diag(bool with_tcp_info = false);

// The tcpstat collector over a given source (make_tcpstat uses the netlink one).
std::unique_ptr<Collector> make_tcpstat_with(const CollectorContext& ctx, std::unique_ptr<TcpDiag> diag);

}  // namespace llmon::collector
