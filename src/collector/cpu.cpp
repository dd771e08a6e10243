// cpu collector (node_exporter 1.5 cpu_linux.go): node_cpu_seconds_total and
// node_cpu_guest_seconds_total from /proc/stat with 1.5's monotonic/hotplug
// cache, node_cpu_isolated from /sys/devices/system/cpu/isolated (read once at
// start, as node_exporter does), node_cpu_{core,package}_throttles_total from
// cpu*/topology and cpu*/thermal_throttle, and with --collector.cpu.info the
// /proc/cpuinfo families (cpu_info.h). The sysfs files stay open; the CPU
// directories are re-listed, and unreadable files retried, only when the set
// of CPUs in /proc/stat (the online CPUs) changes.
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/builtin.h"
#include "collector/cpu_dirs.h"
#include "collector/cpu_info.h"
#include "collector/options.h"
#include "procfs/cpu_list.h"
#include "procfs/stat.h"

namespace llmon::collector {
namespace {

// An idle counter falling back by this many seconds or more means the CPU was
// replugged: its cached values are reset (node_exporter's jumpBackSeconds).
constexpr double kJumpBackSeconds = 3.0;

std::string_view u64_label(uint64_t v, char (&buf)[24]) {
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string_view(buf, static_cast<size_t>(r.ptr - buf));
}

// A sysfs file holding one unsigned number. A file that cannot be read is not
// retried until the online CPU set changes and the owner is rebuilt: a failed
// open costs more than a read (thermal_throttle is absent on VMs and AMD).
struct SysU64 {
  explicit SysU64(std::string path) : file(std::move(path)) {}
  std::optional<uint64_t> read() {
    if (gone) return std::nullopt;
    auto text = file.read();
    if (!text) {
      gone = true;
      return std::nullopt;
    }
    return base::parse_u64(base::trim(*text));
  }
  base::CachedFile file;
  bool gone = false;
};

// The files of one cpuN directory that the throttle metrics read.
struct ThrottleFiles {
  explicit ThrottleFiles(const std::string& cpu_dir)
      : package_id(cpu_dir + "/topology/physical_package_id"),
        core_id(cpu_dir + "/topology/core_id"),
        core_throttles(cpu_dir + "/thermal_throttle/core_throttle_count"),
        package_throttles(cpu_dir + "/thermal_throttle/package_throttle_count") {}
  SysU64 package_id, core_id, core_throttles, package_throttles;
};

struct CoreCount {
  uint64_t package, core, count;
};
struct PackageCount {
  uint64_t package, count;
};

class CpuCollector final : public Collector {
 public:
  explicit CpuCollector(const CollectorContext& ctx)
      : source_(ctx.proc_stat()),
        cpu_dirs_(ctx.fs.sys("devices/system/cpu")),
        log_(ctx.log),
        guest_(ctx.option(flag::kCollectorCpuGuest)),
        info_(ctx) {
    // node_exporter reads the isolated list once, when the collector is created.
    auto text = base::read_file(ctx.fs.sys("devices/system/cpu/isolated"));
    if (text) {
      auto cpus = procfs::parse_cpu_list(*text);
      if (cpus) {
        for (uint32_t c : *cpus) isolated_.push_back(std::to_string(c));
      } else if (log_) {
        log_->warn("cpu: ignoring unparsable isolated CPU list", {{"err", cpus.error()}});
      }
    }
  }

  Status collect(model::SnapshotBuilder& out) override {
    // node_exporter writes the info first and returns on its error.
    if (info_.enabled())
      if (Status s = info_.write(out); !s) return s;
    auto parsed = source_->get(out.timestamp_ms());
    // node_exporter returns before the isolated and throttle metrics too.
    if (!parsed) return parsed.status();
    stat_ = *parsed;
    update_cache();
    emit_times(out);
    if (!isolated_.empty()) {
      auto iso = out.family("node_cpu_isolated",
                            "Whether each core is isolated, information from /sys/devices/system/cpu/isolated.",
                            model::MetricType::kGauge, {"cpu"});
      for (const auto& c : isolated_) iso.add({c}, 1);
    }
    emit_throttles(out);
    return Status::ok();
  }

 private:
  const std::string& cpu_label(size_t i) {
    while (cpu_labels_.size() <= i) cpu_labels_.push_back(std::to_string(cpu_labels_.size()));
    return cpu_labels_[i];
  }

  void jumped(std::string_view msg, size_t cpu, double old_value, double new_value) {
    if (!log_ || !log_->enabled(base::LogLevel::kDebug)) return;
    std::string c = std::to_string(cpu), o = std::to_string(old_value), n = std::to_string(new_value);
    log_->debug(msg, {{"cpu", c}, {"old_value", o}, {"new_value", n}});
  }

  // node_exporter 1.5 keeps a slice indexed by CPU number: a different CPU
  // count resets it, an idle drop of >= 3 s resets one CPU, and any other
  // counter that goes backwards keeps its previous value.
  void update_cache() {
    const auto& now = stat_->cpus;
    if (cache_.size() != now.size()) cache_.assign(now.size(), procfs::CpuTimes{});
    for (size_t i = 0; i < now.size(); ++i) {
      const procfs::CpuTimes& n = now[i];
      procfs::CpuTimes& c = cache_[i];
      if (c.idle - n.idle >= kJumpBackSeconds) {
        jumped("CPU Idle counter jumped backwards more than 3 seconds, possible hotplug event, resetting CPU stats", i,
               c.idle, n.idle);
        c = procfs::CpuTimes{};
      }
      struct Field {
        double procfs::CpuTimes::*member;
        const char* msg;
      };
      static constexpr Field kFields[] = {
          {&procfs::CpuTimes::idle, "CPU Idle counter jumped backwards"},
          {&procfs::CpuTimes::user, "CPU User counter jumped backwards"},
          {&procfs::CpuTimes::nice, "CPU Nice counter jumped backwards"},
          {&procfs::CpuTimes::system, "CPU System counter jumped backwards"},
          {&procfs::CpuTimes::iowait, "CPU Iowait counter jumped backwards"},
          {&procfs::CpuTimes::irq, "CPU IRQ counter jumped backwards"},
          {&procfs::CpuTimes::softirq, "CPU SoftIRQ counter jumped backwards"},
          {&procfs::CpuTimes::steal, "CPU Steal counter jumped backwards"},
          {&procfs::CpuTimes::guest, "CPU Guest counter jumped backwards"},
          {&procfs::CpuTimes::guest_nice, "CPU GuestNice counter jumped backwards"},
      };
      for (const Field& f : kFields) {
        if (n.*f.member >= c.*f.member)
          c.*f.member = n.*f.member;
        else
          jumped(f.msg, i, c.*f.member, n.*f.member);
      }
    }
  }

  void emit_times(model::SnapshotBuilder& out) {
    auto secs = out.family("node_cpu_seconds_total", "Seconds the CPUs spent in each mode.",
                           model::MetricType::kCounter, {"cpu", "mode"});
    for (size_t i = 0; i < cache_.size(); ++i) {
      const auto& t = cache_[i];
      std::string_view cpu = cpu_label(i);
      secs.add({cpu, "user"}, t.user);
      secs.add({cpu, "nice"}, t.nice);
      secs.add({cpu, "system"}, t.system);
      secs.add({cpu, "idle"}, t.idle);
      secs.add({cpu, "iowait"}, t.iowait);
      secs.add({cpu, "irq"}, t.irq);
      secs.add({cpu, "softirq"}, t.softirq);
      secs.add({cpu, "steal"}, t.steal);
    }
    if (!guest_) return;
    // Guest time is also counted in user and nice.
    auto guest = out.family("node_cpu_guest_seconds_total", "Seconds the CPUs spent in guests (VMs) for each mode.",
                            model::MetricType::kCounter, {"cpu", "mode"});
    for (size_t i = 0; i < cache_.size(); ++i) {
      std::string_view cpu = cpu_label(i);
      guest.add({cpu, "user"}, cache_[i].guest);
      guest.add({cpu, "nice"}, cache_[i].guest_nice);
    }
  }

  // Each (package, core) and each package is read from the first CPU, in glob
  // order, that has the file; CPUs without topology are skipped.
  // The CPU set in /proc/stat is the online set: the sysfs lists are checked
  // again only when it changes (hotplug), which saves two sysfs reads a cycle.
  bool online_set_changed() {
    const auto& now = stat_->cpus;
    bool same = online_.size() == now.size();
    for (size_t i = 0; same && i < now.size(); ++i) same = (online_[i] != 0) == now[i].present;
    if (same) return false;
    online_.resize(now.size());
    for (size_t i = 0; i < now.size(); ++i) online_[i] = now[i].present ? 1 : 0;
    return true;
  }

  void emit_throttles(model::SnapshotBuilder& out) {
    if ((online_set_changed() || throttle_files_.empty()) && cpu_dirs_.refresh()) {
      throttle_files_.clear();
      for (const auto& name : cpu_dirs_.names()) throttle_files_.emplace_back(cpu_dirs_.dir() + "/" + name);
    }
    cores_.clear();
    packages_.clear();
    for (auto& f : throttle_files_) {
      // Without thermal_throttle (VMs, non-Intel) a CPU contributes nothing:
      // skip its topology reads too once both counts proved unreadable.
      if (f.core_throttles.gone && f.package_throttles.gone) continue;
      auto pkg = f.package_id.read();
      if (!pkg) continue;
      auto core = f.core_id.read();
      if (!core) continue;
      bool have_core = std::any_of(cores_.begin(), cores_.end(),
                                   [&](const CoreCount& c) { return c.package == *pkg && c.core == *core; });
      if (!have_core) {
        if (auto v = f.core_throttles.read()) cores_.push_back({*pkg, *core, *v});
      }
      bool have_pkg =
          std::any_of(packages_.begin(), packages_.end(), [&](const PackageCount& p) { return p.package == *pkg; });
      if (!have_pkg) {
        if (auto v = f.package_throttles.read()) packages_.push_back({*pkg, *v});
      }
    }
    std::sort(packages_.begin(), packages_.end(),
              [](const PackageCount& a, const PackageCount& b) { return a.package < b.package; });
    std::sort(cores_.begin(), cores_.end(), [](const CoreCount& a, const CoreCount& b) {
      return a.package != b.package ? a.package < b.package : a.core < b.core;
    });
    char pbuf[24], cbuf[24];
    auto pk = out.family("node_cpu_package_throttles_total", "Number of times this CPU package has been throttled.",
                         model::MetricType::kCounter, {"package"});
    for (const auto& p : packages_) pk.add({u64_label(p.package, pbuf)}, static_cast<double>(p.count));
    auto co = out.family("node_cpu_core_throttles_total", "Number of times this CPU core has been throttled.",
                         model::MetricType::kCounter, {"core", "package"});
    for (const auto& c : cores_)
      co.add({u64_label(c.core, cbuf), u64_label(c.package, pbuf)}, static_cast<double>(c.count));
  }

  std::shared_ptr<ProcStatSource> source_;
  CpuDirs cpu_dirs_;
  base::Logger* log_;
  bool guest_;
  CpuInfoWriter info_;
  std::vector<std::string> isolated_;
  const procfs::ProcStat* stat_ = nullptr;  // this cycle's, from source_
  std::vector<procfs::CpuTimes> cache_;
  std::vector<std::string> cpu_labels_;
  std::vector<ThrottleFiles> throttle_files_;
  std::vector<char> online_;  // per CPU number: had a /proc/stat line last cycle
  std::vector<CoreCount> cores_;
  std::vector<PackageCount> packages_;
};

}  // namespace

std::unique_ptr<Collector> make_cpu(const CollectorContext& ctx) {
  return std::make_unique<CpuCollector>(ctx);
}

}  // namespace llmon::collector
