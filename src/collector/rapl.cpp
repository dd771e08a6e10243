// rapl collector (node_exporter 1.5 rapl_linux.go over procfs'
// sysfs/class_powercap.go): node_rapl_<zone>_joules_total{index,path} from
// each /sys/class/powercap/<zone>/energy_uj whose zone has a name file
// ("package-0" is zone "package" index 0), path being the zone directory
// under --path.sysfs. No powercap class, or one this user may not read (the
// energy counters are root-only since Linux 5.10), is "no data". A zone that
// fails ends the cycle with the error, after the zones before it, as
// node_exporter. Not implemented: --collector.rapl.enable-zone-label (1.5's
// node_rapl_joules_total{rapl_zone}, off by default).
#include <cerrno>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/options.h"
#include "procfs/powercap.h"

namespace llmon::collector {
namespace {

struct Zone {
  std::string name, index, path;
  double joules = 0;
};

class RaplCollector final : public Collector {
 public:
  explicit RaplCollector(const CollectorContext& ctx)
      : dir_(ctx.fs.sys("class/powercap")), zone_label_(ctx.option(flag::kCollectorRaplEnableZoneLabel)) {}

  Status collect(model::SnapshotBuilder& out) override {
    zones_.clear();
    pending_.clear();
    Status s = read_zones();
    if (s) s = read_energy();
    if (zone_label_) {
      auto w = out.family("node_rapl_joules_total", "Current RAPL value in joules", model::MetricType::kCounter,
                          {"index", "path", "rapl_zone"});
      for (const auto& z : zones_) w.add({z.index, z.path, z.name}, z.joules);
      return s;
    }
    // Families by zone name, in order of first appearance.
    std::vector<bool> done(zones_.size());
    for (size_t i = 0; i < zones_.size(); ++i) {
      if (done[i]) continue;
      name_.assign("node_rapl_").append(procfs::sanitize_metric_name(zones_[i].name + "_joules_total"));
      help_.assign("Current RAPL ").append(zones_[i].name).append(" value in joules");
      auto w = out.family(name_, help_, model::MetricType::kCounter, {"index", "path"});
      for (size_t j = i; j < zones_.size(); ++j) {
        if (done[j] || zones_[j].name != zones_[i].name) continue;
        done[j] = true;
        w.add({zones_[j].index, zones_[j].path}, zones_[j].joules);
      }
    }
    return s;
  }

 private:
  // procfs' GetRaplZones: every entry with a readable name file is a zone.
  Status read_zones() {
    if (Status s = base::list_dir(dir_, entries_); !s) {
      const int err = errno;
      if (err == ENOENT || err == EACCES || err == EPERM)
        return Status::no_data("platform doesn't have powercap files present: " + s.message());
      return s.with_context("failed to retrieve rapl stats");
    }
    procfs::RaplZoneNamer namer;
    for (const auto& e : entries_) {
      const std::string path = dir_ + "/" + e.name;
      if (!base::read_file(path + "/name", text_)) continue;
      auto name = namer.next(text_);
      const std::string max_file = path + "/max_energy_range_uj";
      if (Status s = base::read_file(max_file, text_); !s) {
        const int err = errno;
        if (err == ENOENT || err == EACCES || err == EPERM) return Status::no_data(s.message());
        return s.with_context("failed to retrieve rapl stats");
      }
      if (auto max = procfs::parse_powercap_uint(text_, max_file); !max)
        return max.status().with_context("failed to retrieve rapl stats");
      pending_.push_back({std::move(name.name), std::to_string(name.index), path, 0});
    }
    return Status::ok();
  }

  Status read_energy() {
    for (auto& z : pending_) {
      const std::string file = z.path + "/energy_uj";
      if (Status s = base::read_file(file, text_); !s) {
        if (errno == EACCES || errno == EPERM) return Status::no_data("can't access energy_uj file: " + s.message());
        return s;
      }
      auto uj = procfs::parse_powercap_uint(text_, file);
      if (!uj) return uj.status();
      z.joules = static_cast<double>(*uj) / 1000000.0;
      zones_.push_back(std::move(z));
    }
    return Status::ok();
  }

  std::string dir_, text_, name_, help_;
  bool zone_label_;
  std::vector<base::DirEntry> entries_;
  std::vector<Zone> pending_, zones_;
};

}  // namespace

std::unique_ptr<Collector> make_rapl(const CollectorContext& ctx) {
  return std::make_unique<RaplCollector>(ctx);
}

}  // namespace llmon::collector
