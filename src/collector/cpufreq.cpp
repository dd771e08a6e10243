// cpufreq collector (node_exporter 1.5 cpufreq_linux.go with procfs v0.8's
// SystemCpufreq): node_cpu_frequency_{,min_,max_}hertz from cpuinfo_*_freq and
// node_cpu_scaling_frequency_{,min_,max_}hertz from scaling_*_freq (kHz * 1000)
// for every cpu[0-9]* directory that has a cpufreq/ subdirectory. 1.5 has no
// governor metric. No cpufreq anywhere (VMs) is no series and success.
// CPUs without cpufreq are probed again every kProbeEvery cycles and whenever
// the CPU set or online state changes, not every cycle.
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/builtin.h"
#include "collector/cpu_dirs.h"

namespace llmon::collector {
namespace {

struct Value {
  const char* file;
  const char* metric;
  const char* help;
};

// In emission order. node_exporter 1.5 spells "cpu" in lower case in the first three.
constexpr std::array<Value, 6> kValues = {{
    {"cpuinfo_cur_freq", "node_cpu_frequency_hertz", "Current cpu thread frequency in hertz."},
    {"cpuinfo_min_freq", "node_cpu_frequency_min_hertz", "Minimum cpu thread frequency in hertz."},
    {"cpuinfo_max_freq", "node_cpu_frequency_max_hertz", "Maximum cpu thread frequency in hertz."},
    {"scaling_cur_freq", "node_cpu_scaling_frequency_hertz", "Current scaled CPU thread frequency in hertz."},
    {"scaling_min_freq", "node_cpu_scaling_frequency_min_hertz", "Minimum scaled CPU thread frequency in hertz."},
    {"scaling_max_freq", "node_cpu_scaling_frequency_max_hertz", "Maximum scaled CPU thread frequency in hertz."},
}};

// procfs v0.8 fails the whole read when one of these is missing, though
// node_exporter 1.5 exports none of them.
constexpr const char* kRequiredFiles[] = {"scaling_available_governors", "scaling_driver", "scaling_governor",
                                          "related_cpus", "scaling_setspeed"};

// How often (in cycles) CPUs without a cpufreq directory are probed again: a
// driver module loaded after start shows up within this many cycles.
constexpr uint64_t kProbeEvery = 16;

struct CpuFreq {
  explicit CpuFreq(const std::string& cpu_dir, std::string_view name)
      : label(name.substr(3)), dir(cpu_dir + "/cpufreq") {}

  std::string label;                        // "0" for cpu0
  std::string dir;                          // .../cpu0/cpufreq
  std::vector<base::CachedFile> files;      // parallel to kValues, opened once active
  std::array<bool, kValues.size()> gone{};  // unreadable: retried on probe cycles only
  bool active = false;                      // the directory exists and its required files were checked
  std::array<double, kValues.size()> hz{};
  unsigned have = 0;  // bit i: kValues[i] was read this cycle
};

class CpuFreqCollector final : public Collector {
 public:
  explicit CpuFreqCollector(const CollectorContext& ctx) : cpu_dirs_(ctx.fs.sys("devices/system/cpu")) {}

  Status collect(model::SnapshotBuilder& out) override {
    const bool changed = cpu_dirs_.refresh();
    if (changed) {
      cpus_.clear();
      for (const auto& name : cpu_dirs_.names()) cpus_.emplace_back(cpu_dirs_.dir() + "/" + name, name);
    }
    // A failed probe is repeated every cycle, so the failure persists like
    // node_exporter's until the files are fixed.
    const bool probe = changed || probe_failed_ || ++cycles_ % kProbeEvery == 0;
    probe_failed_ = false;
    // Read everything first: like node_exporter, one bad CPU means no series at all.
    for (auto& c : cpus_) {
      c.have = 0;
      if (!c.active) {
        if (!probe) continue;
        Status s = activate(c);
        if (!s) {
          probe_failed_ = true;
          return s;
        }
        if (!c.active) continue;
      } else if (probe) {
        c.gone.fill(false);  // retry files that failed (transient errors, permissions)
      }
      for (size_t i = 0; i < kValues.size(); ++i) {
        if (c.gone[i]) continue;
        auto text = c.files[i].read();
        if (!text) {  // absent (cpuinfo_cur_freq is root-only) or unreadable: no series
          c.gone[i] = true;
          continue;
        }
        auto khz = base::parse_u64(base::trim(*text));
        if (!khz)
          return Status::error(c.files[i].path() + ": not a frequency: \"" + std::string(base::trim(*text)) + "\"");
        c.hz[i] = static_cast<double>(*khz) * 1000.0;
        c.have |= 1u << i;
      }
      // Nothing readable: the directory may be gone (driver unloaded) or
      // replaced (reloaded); the next probe starts this CPU afresh.
      if (c.have == 0 && probe) c.active = false;
    }
    for (size_t i = 0; i < kValues.size(); ++i) {
      auto fam = out.family(kValues[i].metric, kValues[i].help, model::MetricType::kGauge, {"cpu"});
      for (const auto& c : cpus_)
        if (c.have & (1u << i)) fam.add({c.label}, c.hz[i]);
    }
    return Status::ok();
  }

 private:
  // Probes a CPU without a known cpufreq directory, as procfs does for every
  // CPU: no directory is fine, a directory missing one of the attributes
  // procfs reads is an error. Allocates only when the directory exists.
  static Status activate(CpuFreq& c) {
    struct stat st;
    if (::stat(c.dir.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::ok();
      return Status::error("stat " + c.dir + ": " + std::strerror(errno));
    }
    for (const char* f : kRequiredFiles) {
      std::string path = c.dir + "/" + f;
      if (::access(path.c_str(), R_OK) != 0) return Status::error("open " + path + ": " + std::strerror(errno));
    }
    c.files.clear();
    for (const auto& v : kValues) c.files.emplace_back(c.dir + "/" + v.file);
    c.gone.fill(false);
    c.active = true;
    return Status::ok();
  }

  CpuDirs cpu_dirs_;
  std::vector<CpuFreq> cpus_;
  uint64_t cycles_ = 0;
  bool probe_failed_ = false;
};

}  // namespace

std::unique_ptr<Collector> make_cpufreq(const CollectorContext& ctx) {
  return std::make_unique<CpuFreqCollector>(ctx);
}

}  // namespace llmon::collector
