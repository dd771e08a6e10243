// tcpstat collector (node_exporter 1.5 tcpstat_linux.go, off by default):
// node_tcp_connection_states{state} from an INET_DIAG netlink dump of the
// TCP sockets (tcp_diag.h), IPv4 always and IPv6 when /proc/net/tcp6 exists
// (under --path.procfs, as node_exporter checks). Like 1.5: a state appears
// only when some socket is in it, rx_queued_bytes and tx_queued_bytes (the
// sums of the sockets' receive and send queues; for listeners the accept
// queue and its limit) whenever there is a socket. The sockets are the
// agent's network namespace's, whatever --path.procfs says. A failed dump
// fails the collector ("couldn't get tcpstats" / "tcp6stats").
#include <sys/socket.h>
#include <sys/stat.h>

#include "collector/builtin.h"
#include "collector/tcp_diag.h"
#include "procfs/inet_diag.h"

namespace llmon::collector {
namespace {

class TcpstatCollector final : public Collector {
 public:
  TcpstatCollector(const CollectorContext& ctx, std::unique_ptr<TcpDiag> diag)
      : tcp6_(ctx.fs.proc("net/tcp6")), diag_(std::move(diag)) {}

  Status collect(model::SnapshotBuilder& out) override {
    procfs::TcpStates total;
    if (Status s = dump(AF_INET, total); !s) return s.with_context("couldn't get tcpstats");
    struct stat st;
    if (::stat(tcp6_.c_str(), &st) == 0) {
      procfs::TcpStates v6;
      if (Status s = dump(AF_INET6, v6); !s) return s.with_context("couldn't get tcp6stats");
      total.merge(v6);
    }
    auto fam =
        out.family("node_tcp_connection_states", "Number of connection states.", model::MetricType::kGauge, {"state"});
    for (size_t i = 1; i <= 11; ++i)
      if (total.by_state[i] > 0) fam.add({procfs::tcp_state_name(i)}, total.by_state[i]);
    if (total.unknown > 0) fam.add({"unknown"}, total.unknown);
    if (total.records > 0) {
      // States 12 and 13 share node_exporter's map keys with the queue sums.
      fam.add({"rx_queued_bytes"}, total.rx_queued_bytes + total.by_state[12]);
      fam.add({"tx_queued_bytes"}, total.tx_queued_bytes + total.by_state[13]);
    }
    return Status::ok();
  }

 private:
  Status dump(uint8_t family, procfs::TcpStates& into) {
    return diag_->dump(family, [&](std::string_view datagram, bool& done) {
      return procfs::parse_inet_diag_datagram(datagram, into, done);
    });
  }

  std::string tcp6_;
  std::unique_ptr<TcpDiag> diag_;
};

}  // namespace

std::unique_ptr<Collector> make_tcpstat_with(const CollectorContext& ctx, std::unique_ptr<TcpDiag> diag) {
  return std::make_unique<TcpstatCollector>(ctx, std::move(diag));
}

std::unique_ptr<Collector> make_tcpstat(const CollectorContext& ctx) {
  return make_tcpstat_with(ctx, make_netlink_tcp_diag());
}

}  // namespace llmon::collector
