// udp_queues collector (node_exporter 1.5 udp_queues_linux.go):
// node_udp_queues{ip="v4"|"v6",queue="tx"|"rx"}, the bytes queued on all UDP
// sockets, from /proc/net/udp and /proc/net/udp6. A missing file (that IP
// version disabled) is skipped; with both missing the collector reports no
// data (success 0), as node_exporter's ErrNoData does.
#include <unistd.h>

#include <array>
#include <string>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/net_udp.h"

namespace llmon::collector {
namespace {

class UdpQueuesCollector final : public Collector {
 public:
  explicit UdpQueuesCollector(const CollectorContext& ctx)
      : files_{base::CachedFile(ctx.fs.proc("net/udp")), base::CachedFile(ctx.fs.proc("net/udp6"))} {}

  Status collect(model::SnapshotBuilder& out) override {
    static constexpr std::string_view kIp[] = {"v4", "v6"};
    std::array<procfs::SocketQueues, 2> q;
    size_t n = 0;  // files read, in order: v4's series are kept when v6 fails, as in node_exporter
    bool any = false;
    Status s;
    for (; n < files_.size(); ++n) {
      present_[n] = false;
      auto text = files_[n].read();
      if (!text) {
        if (::access(files_[n].path().c_str(), F_OK) != 0) continue;  // IPv4/IPv6 disabled
        s = text.status().with_context("couldn't get udp queued bytes");
        break;
      }
      auto r = procfs::parse_socket_queues(*text, files_[n].path());
      if (!r) {
        s = r.status().with_context("couldn't get udp queued bytes");
        break;
      }
      q[n] = *r;
      present_[n] = any = true;
    }
    if (any) {
      auto fam = out.family("node_udp_queues", "Number of allocated memory in the kernel for UDP datagrams in bytes.",
                            model::MetricType::kGauge, {"ip", "queue"});  // client_golang's (sorted) label order
      for (size_t i = 0; i < n; ++i) {
        if (!present_[i]) continue;
        fam.add({kIp[i], "tx"}, static_cast<double>(q[i].tx_queue));
        fam.add({kIp[i], "rx"}, static_cast<double>(q[i].rx_queue));
      }
    }
    if (!s) return s;
    if (!any) return Status::no_data(files_[0].path() + " and " + files_[1].path() + " are missing");
    return Status::ok();
  }

 private:
  std::array<base::CachedFile, 2> files_;
  std::array<bool, 2> present_{};
};

}  // namespace

std::unique_ptr<Collector> make_udp_queues(const CollectorContext& ctx) {
  return std::make_unique<UdpQueuesCollector>(ctx);
}

}  // namespace llmon::collector
