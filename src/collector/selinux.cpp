// selinux collector (node_exporter 1.5 selinux_linux.go): node_selinux_enabled,
// and when enabled node_selinux_config_mode (/etc/selinux/config's SELINUX=,
// under --path.rootfs) and node_selinux_current_mode (selinuxfs's enforce),
// as go-selinux's modes (1 enforcing, 0 permissive, -1 disabled).
// Enabled means <sysfs>/fs/selinux/enforce exists: go-selinux also checks the
// mount's filesystem type and the process's own context, and it ignores
// --path.sysfs (it reads the real /sys), so node_exporter's answer on a
// re-rooted tree is the host's; llmon's follows the tree (docs/metrics.md).
#include "procfs/selinux.h"

#include <unistd.h>

#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

class SelinuxCollector final : public Collector {
 public:
  explicit SelinuxCollector(const CollectorContext& ctx)
      : enforce_(ctx.fs.sys("fs/selinux/enforce")), config_(ctx.fs.rooted("/etc/selinux/config")) {}

  Status collect(model::SnapshotBuilder& out) override {
    using model::MetricType;
    std::string text;
    const bool enabled = ::access(enforce_.c_str(), F_OK) == 0;
    out.family("node_selinux_enabled", "SELinux is enabled, 1 is true, 0 is false", MetricType::kGauge)
        .add(enabled ? 1 : 0);
    if (!enabled) return Status::ok();
    // A missing config is go-selinux's "disabled" (-1), not an error.
    int config = procfs::kSelinuxDisabled;
    if (base::read_file(config_, text)) config = procfs::parse_selinux_config_mode(text);
    out.family("node_selinux_config_mode", "Configured SELinux enforcement mode", MetricType::kGauge).add(config);
    int current = procfs::kSelinuxDisabled;
    if (base::read_file(enforce_, text)) current = procfs::parse_selinux_enforce(text);
    out.family("node_selinux_current_mode", "Current SELinux enforcement mode", MetricType::kGauge).add(current);
    return Status::ok();
  }

 private:
  std::string enforce_, config_;
};

}  // namespace

std::unique_ptr<Collector> make_selinux(const CollectorContext& ctx) {
  return std::make_unique<SelinuxCollector>(ctx);
}

}  // namespace llmon::collector
