// selinux collector (node_exporter 1.5 selinux_linux.go over go-selinux):
// node_selinux_enabled, and when it is 1 node_selinux_config_mode (from
// <rootfs>/etc/selinux/config) and node_selinux_current_mode (selinuxfs'
// enforce), -1 disabled, 0 permissive, 1 enforcing. Enabled: selinuxfs
// (<sysfs>/fs/selinux/enforce) is there and the process's context
// (<procfs>/thread-self/attr/current, or self/attr/current) is not "kernel".
// Unlike go-selinux, which reads the live /sys and /proc whatever
// --path.sysfs/--path.procfs say, every path is re-rooted; and selinuxfs is
// recognised by its enforce file, not by statfs' magic number (docs/metrics.md).
#include "procfs/selinux.h"

#include <string>

#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

using model::MetricType;

class SelinuxCollector final : public Collector {
 public:
  explicit SelinuxCollector(const CollectorContext& ctx)
      : enforce_(ctx.fs.sys("fs/selinux/enforce")),
        thread_current_(ctx.fs.proc("thread-self/attr/current")),
        self_current_(ctx.fs.proc("self/attr/current")),
        config_(ctx.fs.rooted("/etc/selinux/config")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto enforce = base::read_file(enforce_);
    bool enabled = enforce.has_value() && !kernel_context();
    out.family("node_selinux_enabled", "SELinux is enabled, 1 is true, 0 is false", MetricType::kGauge)
        .add(enabled ? 1 : 0);
    if (!enabled) return Status::ok();
    auto config = base::read_file(config_);
    out.family("node_selinux_config_mode", "Configured SELinux enforcement mode", MetricType::kGauge)
        .add(config ? procfs::selinux_config_mode(*config) : -1);
    out.family("node_selinux_current_mode", "Current SELinux enforcement mode", MetricType::kGauge)
        .add(procfs::selinux_enforce_mode(*enforce));
    return Status::ok();
  }

 private:
  // No readable context: not enabled, as go-selinux.
  bool kernel_context() const {
    auto current = base::read_file(thread_current_);
    if (!current) current = base::read_file(self_current_);
    return !current || procfs::selinux_context_is_kernel(*current);
  }

  std::string enforce_, thread_current_, self_current_, config_;
};

}  // namespace

std::unique_ptr<Collector> make_selinux(const CollectorContext& ctx) {
  return std::make_unique<SelinuxCollector>(ctx);
}

}  // namespace llmon::collector
