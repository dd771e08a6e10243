// arp collector (node_exporter 1.5 arp_linux.go): node_arp_entries{device},
// the /proc/net/arp entries per device, filtered by
// --collector.arp.device-include / device-exclude. A missing or malformed
// file fails the collector.
#include <algorithm>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/device_filter.h"
#include "collector/options.h"
#include "procfs/net_arp.h"

namespace llmon::collector {
namespace {

class ArpCollector final : public Collector {
 public:
  explicit ArpCollector(const CollectorContext& ctx)
      : file_(ctx.fs.proc("net/arp")),
        filter_(ctx.option(flag::kCollectorArpDeviceExclude), ctx.option(flag::kCollectorArpDeviceInclude)) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!filter_.status()) return filter_.status();
    auto text = file_.read();
    if (!text) return text.status().with_context("could not get ARP entries");
    Status s = procfs::parse_arp(*text, file_.path(), devices_);
    if (!s) return s.with_context("could not get ARP entries");
    std::sort(devices_.begin(), devices_.end(),
              [](const procfs::ArpDeviceCount& a, const procfs::ArpDeviceCount& b) { return a.device < b.device; });
    auto fam = out.family("node_arp_entries", "ARP entries by device", model::MetricType::kGauge, {"device"});
    for (const auto& d : devices_)
      if (!filter_.ignored(d.device)) fam.add({d.device}, static_cast<double>(d.entries));
    return Status::ok();
  }

 private:
  base::CachedFile file_;
  DeviceFilter filter_;
  std::vector<procfs::ArpDeviceCount> devices_;
};

}  // namespace

std::unique_ptr<Collector> make_arp(const CollectorContext& ctx) {
  return std::make_unique<ArpCollector>(ctx);
}

}  // namespace llmon::collector
