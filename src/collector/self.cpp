// self collector (llmon's own, not in node_exporter): the agent's process
// metrics named and computed as client_golang's process collector does
// (process_cpu_seconds_total, process_{resident,virtual}_memory_bytes,
// process_virtual_memory_max_bytes, process_{open,max}_fds,
// process_start_time_seconds), plus llmon_build_info{version} 1.
// Always reads the real /proc/self, never --path.procfs (which may be a
// fixture tree describing another host).
#include <dirent.h>
#include <unistd.h>

#include <cstring>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/process_stat.h"

namespace llmon::collector {
namespace {

constexpr double kUserHz = 100;  // what prometheus/procfs assumes for /proc/<pid>/stat

class SelfCollector final : public Collector {
 public:
  explicit SelfCollector(const CollectorContext& ctx)
      : version_(ctx.version),
        stat_("/proc/self/stat"),
        limits_("/proc/self/limits"),
        page_size_(static_cast<double>(::sysconf(_SC_PAGESIZE))) {
    if (version_.empty()) version_ = "unknown";
  }

  Status collect(model::SnapshotBuilder& out) override {
    out.family("llmon_build_info", "A metric with a constant '1' value labeled by version from which llmon was built.",
               model::MetricType::kGauge, {"version"})
        .add({version_}, 1);

    Status result = Status::ok();
    auto text = stat_.read();
    auto st = text ? procfs::parse_process_stat(*text) : Expected<procfs::ProcessStat>(text.status());
    if (st) {
      out.family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                 model::MetricType::kCounter)
          .add(static_cast<double>(st->utime_ticks + st->stime_ticks) / kUserHz);
      out.family("process_virtual_memory_bytes", "Virtual memory size in bytes.", model::MetricType::kGauge)
          .add(static_cast<double>(st->vsize_bytes));
      out.family("process_resident_memory_bytes", "Resident memory size in bytes.", model::MetricType::kGauge)
          .add(static_cast<double>(st->rss_pages) * page_size_);
      if (start_time_s_ < 0) start_time_s_ = start_time(*st);
      if (start_time_s_ >= 0)
        out.family("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                   model::MetricType::kGauge)
            .add(start_time_s_);
    } else {
      result = st.status().with_context(stat_.path());
    }

    if (auto fds = count_open_fds(); fds >= 0) {
      out.family("process_open_fds", "Number of open file descriptors.", model::MetricType::kGauge)
          .add(static_cast<double>(fds));
    } else if (result.is_ok()) {
      result = Status::error("opendir /proc/self/fd: " + std::string(std::strerror(errno)));
    }

    auto ltext = limits_.read();
    auto lim = ltext ? procfs::parse_process_limits(*ltext) : Expected<procfs::ProcessLimits>(ltext.status());
    if (lim) {
      out.family("process_max_fds", "Maximum number of open file descriptors.", model::MetricType::kGauge)
          .add(lim->max_open_files);
      out.family("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.",
                 model::MetricType::kGauge)
          .add(lim->max_address_space_bytes);
    } else if (result.is_ok()) {
      result = lim.status().with_context(limits_.path());
    }
    return result;
  }

 private:
  // Boot time (btime of /proc/stat) plus the start tick: constant, computed once.
  static double start_time(const procfs::ProcessStat& st) {
    auto text = base::read_file("/proc/stat");
    if (!text) return -1;
    auto btime = procfs::parse_boot_time(*text);
    if (!btime) return -1;
    return static_cast<double>(*btime) + static_cast<double>(st.starttime_ticks) / kUserHz;
  }

  // Entries of /proc/self/fd, the directory's own descriptor included, as
  // prometheus/procfs counts them. -1 on error.
  static long count_open_fds() {
    DIR* d = ::opendir("/proc/self/fd");
    if (!d) return -1;
    long n = 0;
    while (struct dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++n;
    }
    ::closedir(d);
    return n;
  }

  std::string version_;
  base::CachedFile stat_, limits_;
  double page_size_;
  double start_time_s_ = -1;
};

}  // namespace

std::unique_ptr<Collector> make_self(const CollectorContext& ctx) {
  return std::make_unique<SelfCollector>(ctx);
}

}  // namespace llmon::collector
