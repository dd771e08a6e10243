// mdadm collector (node_exporter 1.5 mdadm_linux.go over procfs' mdstat.go):
// per md array in /proc/mdstat node_md_disks_required, node_md_disks{state=
// active|failed|spare}, node_md_state{state=active|inactive|recovering|
// resync|check} (1 for the array's state) and node_md_blocks /
// node_md_blocks_synced. No /proc/mdstat (md module not loaded) is "no
// data"; a malformed file fails the collector with the file and line named.
#include <cerrno>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/mdstat.h"

namespace llmon::collector {
namespace {

class MdadmCollector final : public Collector {
 public:
  explicit MdadmCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("mdstat")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) {
      if (errno == ENOENT) return Status::no_data("not collecting mdstat: " + text.error());
      return text.status().with_context("error parsing mdstatus");
    }
    auto mds = procfs::parse_mdstat(*text, file_.path());
    if (!mds) return mds.status().with_context("error parsing mdstatus");
    const auto per_md = [&](std::string_view name, std::string_view help, auto value) {
      auto w = out.family(name, help, model::MetricType::kGauge, {"device"});
      for (const auto& md : *mds) w.add({md.name}, static_cast<double>(value(md)));
    };
    per_md("node_md_disks_required", "Total number of disks of device.",
           [](const procfs::MdStat& md) { return md.disks_total; });
    {
      auto w = out.family("node_md_disks", "Number of active/failed/spare disks of device.", model::MetricType::kGauge,
                          {"device", "state"});
      for (const auto& md : *mds) {
        w.add({md.name, "active"}, static_cast<double>(md.disks_active));
        w.add({md.name, "failed"}, static_cast<double>(md.disks_failed));
        w.add({md.name, "spare"}, static_cast<double>(md.disks_spare));
      }
    }
    {
      // node_exporter's label for each procfs state.
      constexpr std::pair<std::string_view, std::string_view> kStates[] = {{"active", "active"},
                                                                           {"inactive", "inactive"},
                                                                           {"recovering", "recovering"},
                                                                           {"resync", "resyncing"},
                                                                           {"check", "checking"}};
      auto w = out.family("node_md_state", "Indicates the state of md-device.", model::MetricType::kGauge,
                          {"device", "state"});
      for (const auto& md : *mds)
        for (const auto& [label, state] : kStates) w.add({md.name, label}, md.state == state ? 1 : 0);
    }
    per_md("node_md_blocks", "Total number of blocks on device.",
           [](const procfs::MdStat& md) { return md.blocks_total; });
    per_md("node_md_blocks_synced", "Number of blocks synced on device.",
           [](const procfs::MdStat& md) { return md.blocks_synced; });
    return Status::ok();
  }

 private:
  base::CachedFile file_;
};

}  // namespace

std::unique_ptr<Collector> make_mdadm(const CollectorContext& ctx) {
  return std::make_unique<MdadmCollector>(ctx);
}

}  // namespace llmon::collector
