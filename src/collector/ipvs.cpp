// ipvs collector (node_exporter 1.5 ipvs_linux.go): IPVS totals from
// /proc/net/ip_vs_stats and, per real server, active and inactive connections
// and weight from /proc/net/ip_vs, labelled by --collector.ipvs.backend-labels
// (default all six; backends that then share label values are summed, as
// node_exporter does). No ip_vs_stats (ip_vs not loaded) is node_exporter's
// ErrNoData. An unknown label name fails every cycle with the names (node_exporter
// refuses to start).
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/builtin.h"
#include "collector/file_or_no_data.h"
#include "collector/options.h"
#include "procfs/net_ip_vs.h"

namespace llmon::collector {
namespace {

using model::MetricType;

constexpr std::string_view kLabels[] = {"local_address", "local_port", "remote_address",
                                        "remote_port",   "proto",      "local_mark"};

std::string label_value(const procfs::IpvsBackend& b, std::string_view label) {
  if (label == "local_address") return b.local_address;
  if (label == "local_port") return std::to_string(b.local_port);
  if (label == "remote_address") return b.remote_address;
  if (label == "remote_port") return std::to_string(b.remote_port);
  if (label == "proto") return b.proto;
  return b.local_mark;
}

class IpvsCollector final : public Collector {
 public:
  explicit IpvsCollector(const CollectorContext& ctx)
      : stats_(ctx.fs.proc("net/ip_vs_stats")), backends_(ctx.fs.proc("net/ip_vs")) {
    // node_exporter's parseIpvsLabels: the named labels in its order; unknown ones refused.
    std::vector<std::string> unknown;
    auto given = base::split(ctx.option(flag::kCollectorIpvsBackendLabels), ',');
    for (std::string_view l : kLabels)
      if (std::find(given.begin(), given.end(), l) != given.end()) labels_.emplace_back(l);
    for (std::string_view g : given)
      if (!g.empty() && std::find(std::begin(kLabels), std::end(kLabels), g) == std::end(kLabels))
        unknown.emplace_back(g);
    std::sort(unknown.begin(), unknown.end());
    unknown.erase(std::unique(unknown.begin(), unknown.end()), unknown.end());
    for (const auto& u : unknown) label_error_ += (label_error_.empty() ? "" : ", ") + u;
    if (!label_error_.empty()) label_error_ = "unknown IPVS backend labels: \"" + label_error_ + "\"";
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!label_error_.empty()) return Status::error(label_error_);
    auto text = read_or_no_data(stats_);
    if (!text) return text.status();
    auto st = procfs::parse_ipvs_stats(*text, stats_.path());
    if (!st) return st.status();
    auto total = [&](std::string_view name, std::string_view help, uint64_t v) {
      out.family(name, help, MetricType::kCounter).add(static_cast<double>(v));
    };
    total("node_ipvs_connections_total", "The total number of connections made.", st->connections);
    total("node_ipvs_incoming_packets_total", "The total number of incoming packets.", st->incoming_packets);
    total("node_ipvs_outgoing_packets_total", "The total number of outgoing packets.", st->outgoing_packets);
    total("node_ipvs_incoming_bytes_total", "The total amount of incoming data.", st->incoming_bytes);
    total("node_ipvs_outgoing_bytes_total", "The total amount of outgoing data.", st->outgoing_bytes);

    auto btext = backends_.read();
    if (!btext) return btext.status().with_context("could not get backend status");
    auto backends = procfs::parse_ipvs_backends(*btext, backends_.path());
    if (!backends) return backends.status();
    sums_.clear();
    for (const auto& b : *backends) {
      std::vector<std::string> key;
      key.reserve(labels_.size());
      for (const auto& l : labels_) key.push_back(label_value(b, l));
      Sum& s = sums_[key];
      s.active += b.active_conn, s.inactive += b.inact_conn, s.weight += b.weight;
    }
    const std::pair<std::string_view, std::string_view> kFamilies[] = {
        {"node_ipvs_backend_connections_active", "The current active connections by local and remote address."},
        {"node_ipvs_backend_connections_inactive", "The current inactive connections by local and remote address."},
        {"node_ipvs_backend_weight", "The current backend weight by local and remote address."},
    };
    for (size_t i = 0; i < 3; ++i) {
      auto f = out.family(kFamilies[i].first, kFamilies[i].second, MetricType::kGauge, labels_);
      for (const auto& [key, s] : sums_)
        f.add(key, static_cast<double>(i == 0 ? s.active : i == 1 ? s.inactive : s.weight));
    }
    return Status::ok();
  }

 private:
  struct Sum {
    uint64_t active = 0, inactive = 0, weight = 0;
  };
  base::CachedFile stats_, backends_;
  std::vector<std::string> labels_;
  std::string label_error_;
  std::map<std::vector<std::string>, Sum> sums_;
};

}  // namespace

std::unique_ptr<Collector> make_ipvs(const CollectorContext& ctx) {
  return std::make_unique<IpvsCollector>(ctx);
}

}  // namespace llmon::collector
