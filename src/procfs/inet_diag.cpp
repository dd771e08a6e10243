#include "procfs/inet_diag.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>

#include <cstring>
#include <string>

namespace llmon::procfs {

void TcpStates::merge(const TcpStates& o) {
  for (size_t i = 0; i < by_state.size(); ++i) by_state[i] += o.by_state[i];
  unknown += o.unknown;
  rx_queued_bytes += o.rx_queued_bytes;
  tx_queued_bytes += o.tx_queued_bytes;
  records += o.records;
}

Status parse_inet_diag_datagram(std::string_view datagram, TcpStates& out, bool& done) {
  size_t off = 0;
  while (datagram.size() - off >= sizeof(nlmsghdr)) {
    nlmsghdr h;
    std::memcpy(&h, datagram.data() + off, sizeof h);
    if (h.nlmsg_len < sizeof(nlmsghdr) || h.nlmsg_len > datagram.size() - off)
      return Status::error("inet_diag: truncated netlink message at byte " + std::to_string(off));
    const char* payload = datagram.data() + off + NLMSG_HDRLEN;
    size_t payload_len = h.nlmsg_len - NLMSG_HDRLEN;
    if (h.nlmsg_type == NLMSG_DONE) {
      done = true;
      return Status::ok();
    }
    if (h.nlmsg_type == NLMSG_ERROR) {
      nlmsgerr e{};
      if (payload_len >= sizeof(int)) std::memcpy(&e.error, payload, sizeof(int));
      if (e.error == 0) {  // an ACK
        off += NLMSG_ALIGN(h.nlmsg_len);
        continue;
      }
      return Status::error(std::string("inet_diag: kernel error: ") + std::strerror(-e.error));
    }
    if (payload_len < sizeof(inet_diag_msg)) return Status::error("inet_diag: short inet_diag_msg");
    inet_diag_msg m;
    std::memcpy(&m, payload, sizeof m);
    if (m.idiag_state > 0 && m.idiag_state < out.by_state.size())
      out.by_state[m.idiag_state] += 1;
    else
      out.unknown += 1;
    out.rx_queued_bytes += m.idiag_rqueue;
    out.tx_queued_bytes += m.idiag_wqueue;
    ++out.records;
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
  return Status::ok();
}

std::string_view tcp_state_name(size_t state) {
  static constexpr std::string_view kNames[] = {
      "unknown", "established", "syn_sent", "syn_recv", "fin_wait1", "fin_wait2",       "time_wait",
      "close",   "close_wait",  "last_ack", "listen",   "closing",   "rx_queued_bytes", "tx_queued_bytes"};
  return state < std::size(kNames) ? kNames[state] : "unknown";
}

}  // namespace llmon::procfs
