// netdev collector: node_network_{receive,transmit}_*_total{device} from
// /proc/net/dev, with node_exporter 1.5's names for its /proc mode
// (netdev_linux.go procNetDevStats + netdev_common.go legacy()). The netlink
// mode's extra receive_nohandler has no /proc/net/dev column and is not emitted.
#include <algorithm>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/device_filter.h"
#include "collector/options.h"
#include "procfs/net_dev.h"

namespace llmon::collector {
namespace {

struct NetDevMetric {
  procfs::NetDevField field;
  std::string_view name;
  std::string_view help;
};

// node_exporter names each family after its map key: "Network device statistic <key>."
constexpr NetDevMetric kMetrics[] = {
    {procfs::kRxBytes, "node_network_receive_bytes_total", "Network device statistic receive_bytes."},
    {procfs::kRxPackets, "node_network_receive_packets_total", "Network device statistic receive_packets."},
    {procfs::kRxErrs, "node_network_receive_errs_total", "Network device statistic receive_errs."},
    {procfs::kRxDrop, "node_network_receive_drop_total", "Network device statistic receive_drop."},
    {procfs::kRxFifo, "node_network_receive_fifo_total", "Network device statistic receive_fifo."},
    {procfs::kRxFrame, "node_network_receive_frame_total", "Network device statistic receive_frame."},
    {procfs::kRxCompressed, "node_network_receive_compressed_total",
     "Network device statistic receive_compressed."},
    {procfs::kRxMulticast, "node_network_receive_multicast_total", "Network device statistic receive_multicast."},
    {procfs::kTxBytes, "node_network_transmit_bytes_total", "Network device statistic transmit_bytes."},
    {procfs::kTxPackets, "node_network_transmit_packets_total", "Network device statistic transmit_packets."},
    {procfs::kTxErrs, "node_network_transmit_errs_total", "Network device statistic transmit_errs."},
    {procfs::kTxDrop, "node_network_transmit_drop_total", "Network device statistic transmit_drop."},
    {procfs::kTxFifo, "node_network_transmit_fifo_total", "Network device statistic transmit_fifo."},
    {procfs::kTxColls, "node_network_transmit_colls_total", "Network device statistic transmit_colls."},
    {procfs::kTxCarrier, "node_network_transmit_carrier_total", "Network device statistic transmit_carrier."},
    {procfs::kTxCompressed, "node_network_transmit_compressed_total",
     "Network device statistic transmit_compressed."},
};

class NetdevCollector final : public Collector {
 public:
  explicit NetdevCollector(const CollectorContext& ctx)
      : file_(ctx.fs.proc("net/dev")),
        filter_(ctx.option(flag::kCollectorNetdevDeviceExclude), ctx.option(flag::kCollectorNetdevDeviceInclude)) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!filter_.status()) return filter_.status();
    auto text = file_.read();
    if (!text) return text.status();
    Status s = procfs::parse_net_dev(*text, lines_);
    if (!s) return s.with_context(file_.path());

    // Kept devices in name order (client_golang sorts series by label value);
    // a name listed twice keeps its last line, as node_exporter's map does.
    kept_.clear();
    for (const auto& l : lines_)
      if (!filter_.ignored(l.name)) kept_.push_back(&l);
    std::stable_sort(kept_.begin(), kept_.end(),
                     [](const procfs::NetDevLine* a, const procfs::NetDevLine* b) { return a->name < b->name; });
    size_t n = 0;
    for (size_t i = 0; i < kept_.size(); ++i) {
      if (n > 0 && kept_[n - 1]->name == kept_[i]->name)
        kept_[n - 1] = kept_[i];
      else
        kept_[n++] = kept_[i];
    }
    kept_.resize(n);

    for (const auto& m : kMetrics) {
      auto fam = out.family(m.name, m.help, model::MetricType::kCounter, {"device"});
      for (const auto* l : kept_) fam.add({l->name}, static_cast<double>(l->v[m.field]));
    }
    return Status::ok();
  }

 private:
  base::CachedFile file_;
  DeviceFilter filter_;
  std::vector<procfs::NetDevLine> lines_;
  std::vector<const procfs::NetDevLine*> kept_;
};

}  // namespace

std::unique_ptr<Collector> make_netdev(const CollectorContext& ctx) { return std::make_unique<NetdevCollector>(ctx); }

}  // namespace llmon::collector
