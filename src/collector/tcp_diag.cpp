#include "collector/tcp_diag.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/unique_fd.h"

namespace llmon::collector {
namespace {

Status errno_status(const char* what) {
  return Status::error(std::string("tcpstat: ") + what + ": " + std::strerror(errno));
}

class NetlinkTcpDiag final : public TcpDiag {
 public:
  explicit NetlinkTcpDiag(bool with_tcp_info) : with_tcp_info_(with_tcp_info) {}
  Status dump(uint8_t family, const DatagramFn& on_datagram) override {
    base::UniqueFd fd(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
    if (!fd.valid()) return errno_status("netlink socket");
    timeval tv{5, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct {
      nlmsghdr h;
      inet_diag_req_v2 r;
    } req{};
    req.h.nlmsg_len = sizeof req;
    req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = ++seq_;
    req.r.sdiag_family = family;
    req.r.sdiag_protocol = IPPROTO_TCP;
    req.r.idiag_states = 0xFFF;  // every state (node_exporter's TCPFAll)
    if (with_tcp_info_) req.r.idiag_ext = 1 << (INET_DIAG_INFO - 1);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd.get(), &req, sizeof req, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
      return errno_status("netlink send");
    buf_.resize(64 * 1024);
    for (bool done = false; !done;) {
      ssize_t n = ::recv(fd.get(), buf_.data(), buf_.size(), 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno_status("netlink receive");
      }
      if (n == 0) return Status::error("tcpstat: netlink socket closed before the end of the dump");
      if (Status s = on_datagram(std::string_view(buf_.data(), static_cast<size_t>(n)), done); !s) return s;
    }
    return Status::ok();
  }

 private:
  bool with_tcp_info_;
  uint32_t seq_ = 0;
  std::string buf_;
};

}  // namespace

std::unique_ptr<TcpDiag> make_netlink_tcp_diag(bool with_tcp_info) {
  return std::make_unique<NetlinkTcpDiag>(with_tcp_info);
}

}  // namespace llmon::collector
