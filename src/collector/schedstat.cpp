// schedstat collector (node_exporter 1.5 schedstat_linux.go): per CPU, the
// time spent running and waiting (ns / 1e9, as node_exporter divides) and the
// timeslices run, from /proc/schedstat. A missing file (kernel without
// CONFIG_SCHEDSTATS) is node_exporter's ErrNoData: no series, success 0.
#include "procfs/schedstat.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

class SchedstatCollector final : public Collector {
 public:
  explicit SchedstatCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("schedstat")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) {
      // node_exporter: ErrNoData when the kernel has no schedstats.
      if (::access(file_.path().c_str(), F_OK) != 0) return Status::no_data(text.error());
      return text.status();
    }
    if (Status s = procfs::parse_schedstat(*text, cpus_, file_.path()); !s) return s;
    constexpr double kNsPerSec = 1e9;
    using model::MetricType;
    auto running = out.family("node_schedstat_running_seconds_total", "Number of seconds CPU spent running a process.",
                              MetricType::kCounter, {"cpu"});
    for (const auto& c : cpus_) running.add({c.cpu}, static_cast<double>(c.running_ns) / kNsPerSec);
    auto waiting =
        out.family("node_schedstat_waiting_seconds_total",
                   "Number of seconds spent by processing waiting for this CPU.", MetricType::kCounter, {"cpu"});
    for (const auto& c : cpus_) waiting.add({c.cpu}, static_cast<double>(c.waiting_ns) / kNsPerSec);
    auto slices = out.family("node_schedstat_timeslices_total", "Number of timeslices executed by CPU.",
                             MetricType::kCounter, {"cpu"});
    for (const auto& c : cpus_) slices.add({c.cpu}, static_cast<double>(c.timeslices));
    return Status::ok();
  }

 private:
  base::CachedFile file_;
  std::vector<procfs::SchedstatCpu> cpus_;
};

}  // namespace

std::unique_ptr<Collector> make_schedstat(const CollectorContext& ctx) {
  return std::make_unique<SchedstatCollector>(ctx);
}

}  // namespace llmon::collector
