// pressure collector (node_exporter 1.5 pressure_linux.go): PSI totals from
// /proc/pressure/{cpu,io,memory} in seconds (total µs / 1000 / 1000, the same
// two divisions as node_exporter so values match bit for bit). 1.5 exports
// cpu "some" only and has no irq metric. A missing file (kernel < 4.20 or no
// CONFIG_PSI) is node_exporter's ErrNoData: no further series, success 0.
#include "procfs/pressure.h"

#include <unistd.h>

#include <array>
#include <string>

#include "base/file_reader.h"
#include "collector/builtin.h"

namespace llmon::collector {
namespace {

class PressureCollector final : public Collector {
 public:
  explicit PressureCollector(const CollectorContext& ctx)
      : files_{base::CachedFile(ctx.fs.proc("pressure/cpu")), base::CachedFile(ctx.fs.proc("pressure/io")),
               base::CachedFile(ctx.fs.proc("pressure/memory"))} {}

  Status collect(model::SnapshotBuilder& out) override {
    using model::MetricType;
    for (size_t r = 0; r < files_.size(); ++r) {
      auto& file = files_[r];
      auto text = file.read();
      if (!text) {
        if (::access(file.path().c_str(), F_OK) != 0)
          return Status::no_data(
              "pressure information is unavailable, you need a Linux kernel >= 4.20 and/or CONFIG_PSI enabled "
              "for your kernel (" +
              file.path() + " is missing)");
        return text.status().with_context("failed to retrieve pressure stats");
      }
      auto psi = procfs::parse_pressure(*text, file.path());
      if (!psi) return psi.status().with_context("failed to retrieve pressure stats");
      const bool need_full = r != 0;
      if (!psi->has_some || (need_full && !psi->has_full))
        return Status::error(file.path() + ": missing the \"" + std::string(psi->has_some ? "full" : "some") +
                             "\" line");
      const double some = seconds(psi->some.total_us), full = seconds(psi->full.total_us);
      switch (r) {
        case 0:
          out.family("node_pressure_cpu_waiting_seconds_total",
                     "Total time in seconds that processes have waited for CPU time", MetricType::kCounter)
              .add(some);
          break;
        case 1:
          out.family("node_pressure_io_waiting_seconds_total",
                     "Total time in seconds that processes have waited due to IO congestion", MetricType::kCounter)
              .add(some);
          out.family("node_pressure_io_stalled_seconds_total",
                     "Total time in seconds no process could make progress due to IO congestion", MetricType::kCounter)
              .add(full);
          break;
        default:
          out.family("node_pressure_memory_waiting_seconds_total",
                     "Total time in seconds that processes have waited for memory", MetricType::kCounter)
              .add(some);
          out.family("node_pressure_memory_stalled_seconds_total",
                     "Total time in seconds no process could make progress due to memory congestion",
                     MetricType::kCounter)
              .add(full);
          break;
      }
    }
    return Status::ok();
  }

 private:
  static double seconds(uint64_t us) { return static_cast<double>(us) / 1000.0 / 1000.0; }

  std::array<base::CachedFile, 3> files_;  // cpu, io, memory
};

}  // namespace

std::unique_ptr<Collector> make_pressure(const CollectorContext& ctx) {
  return std::make_unique<PressureCollector>(ctx);
}

}  // namespace llmon::collector
