// stat collector (node_exporter 1.5 stat_linux.go): boot time, context
// switches, forks, interrupts and running/blocked processes from /proc/stat;
// node_softirqs_total{vector} only with --collector.stat.softirq (off by
// default, as in node_exporter). A malformed /proc/stat fails the collector.
#include "procfs/stat.h"

#include "collector/builtin.h"
#include "collector/options.h"

namespace llmon::collector {
namespace {

class StatCollector final : public Collector {
 public:
  explicit StatCollector(const CollectorContext& ctx)
      : source_(ctx.proc_stat()), softirq_(ctx.option(flag::kCollectorStatSoftirq)) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto parsed = source_->get(out.timestamp_ms());
    if (!parsed) return parsed.status();
    const procfs::ProcStat& stat_ = **parsed;
    using model::MetricType;
    auto d = [](uint64_t v) { return static_cast<double>(v); };
    out.family("node_intr_total", "Total number of interrupts serviced.", MetricType::kCounter).add(d(stat_.irq_total));
    out.family("node_context_switches_total", "Total number of context switches.", MetricType::kCounter)
        .add(d(stat_.context_switches));
    out.family("node_forks_total", "Total number of forks.", MetricType::kCounter).add(d(stat_.processes_created));
    out.family("node_boot_time_seconds", "Node boot time, in unixtime.", MetricType::kGauge).add(d(stat_.boot_time));
    out.family("node_procs_running", "Number of processes in runnable state.", MetricType::kGauge)
        .add(d(stat_.procs_running));
    out.family("node_procs_blocked", "Number of processes blocked waiting for I/O to complete.", MetricType::kGauge)
        .add(d(stat_.procs_blocked));
    if (softirq_) {
      const auto& si = stat_.softirq;
      auto f = out.family("node_softirqs_total", "Number of softirq calls.", MetricType::kCounter, {"vector"});
      f.add({"hi"}, d(si.hi));
      f.add({"timer"}, d(si.timer));
      f.add({"net_tx"}, d(si.net_tx));
      f.add({"net_rx"}, d(si.net_rx));
      f.add({"block"}, d(si.block));
      f.add({"block_iopoll"}, d(si.block_iopoll));
      f.add({"tasklet"}, d(si.tasklet));
      f.add({"sched"}, d(si.sched));
      f.add({"hrtimer"}, d(si.hrtimer));
      f.add({"rcu"}, d(si.rcu));
    }
    return Status::ok();
  }

 private:
  std::shared_ptr<ProcStatSource> source_;
  bool softirq_ = false;
};

}  // namespace

std::unique_ptr<Collector> make_stat(const CollectorContext& ctx) {
  return std::make_unique<StatCollector>(ctx);
}

}  // namespace llmon::collector
