// zfs collector (node_exporter 1.5 zfs_linux.go): OpenZFS kstats from
// /proc/spl/kstat/zfs. Each named kstat file gives untyped families
// node_zfs_<subsystem>_<name> (help: kstat.zfs.misc.<file>.<name>; a file this
// ZFS version lacks is skipped); per pool, <pool>/io gives
// node_zfs_zpool_<field>{zpool}, each <pool>/objset-* node_zfs_zpool_dataset_<name>
// {zpool,dataset}, and <pool>/state node_zfs_zpool_state{zpool,state} (1 for
// the pool's state, 0 for the five others). No /proc/spl/kstat/zfs (module not
// loaded) is node_exporter's ErrNoData.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "procfs/zfs_kstat.h"

namespace llmon::collector {
namespace {

using model::MetricType;

// Subsystem -> kstat file, as node_exporter's linuxPathMap.
struct Kstat {
  std::string_view subsystem, file;
};
constexpr Kstat kKstats[] = {
    {"zfs_abd", "abdstats"},
    {"zfs_arc", "arcstats"},
    {"zfs_dbuf", "dbufstats"},
    {"zfs_dmu_tx", "dmu_tx"},
    {"zfs_dnode", "dnodestats"},
    {"zfs_fm", "fm"},
    {"zfs_vdev_cache", "vdev_cache_stats"},
    {"zfs_vdev_mirror", "vdev_mirror_stats"},
    {"zfs_xuio", "xuio_stats"},
    {"zfs_zfetch", "zfetchstats"},
    {"zfs_zil", "zil"},
};

// node_exporter 1.5's list (newer releases add "suspended").
constexpr std::string_view kPoolStates[] = {"online", "degraded", "faulted", "offline", "removed", "unavail"};

// node_exporter's metricName(): the kstat name with '-' as '_'.
std::string metric_name(std::string_view prefix, std::string_view name) {
  std::string out = "node_" + std::string(prefix) + "_" + std::string(name);
  std::replace(out.begin() + static_cast<std::ptrdiff_t>(prefix.size() + 6), out.end(), '-', '_');
  return out;
}

// Series of families with labels, gathered across pools before they are written.
struct Gathered {
  std::string help;
  std::vector<std::pair<std::vector<std::string>, double>> series;
};

class ZfsCollector final : public Collector {
 public:
  explicit ZfsCollector(const CollectorContext& ctx) : dir_(ctx.fs.proc("spl/kstat/zfs")) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (base::stat_kind(dir_) == base::EntryKind::kMissing)
      return Status::no_data(dir_ + " is missing (ZFS / ZFS statistics are not available)");
    for (const Kstat& k : kKstats) {
      const std::string path = dir_ + "/" + std::string(k.file);
      if (Status s = base::read_file(path, text_); !s) {
        if (base::stat_kind(path) == base::EntryKind::kMissing) continue;  // not in this ZFS version
        return s;
      }
      auto values = procfs::parse_zfs_kstat(text_, path);
      if (!values) return values.status();
      for (const auto& v : *values)
        out.family(metric_name(k.subsystem, v.name), "kstat.zfs.misc." + std::string(k.file) + "." + v.name,
                   MetricType::kUntyped)
            .add(static_cast<double>(v.value));
    }
    return pools(out);
  }

 private:
  Status pools(model::SnapshotBuilder& out) {
    if (Status s = base::list_dir(dir_, entries_); !s) return s;
    std::map<std::string, Gathered> io, objset;
    std::vector<std::pair<std::string, std::string>> states;  // pool, state
    for (const auto& e : entries_) {
      const std::string pool_dir = dir_ + "/" + e.name;
      if (base::stat_kind(pool_dir) != base::EntryKind::kDir) continue;
      if (base::read_file(pool_dir + "/io", text_)) {
        auto values = procfs::parse_zfs_pool_io(text_, pool_dir + "/io");
        if (!values) return values.status();
        for (const auto& v : *values) {
          auto& g = io[metric_name("zfs_zpool", v.name)];
          g.help = "kstat.zfs.misc.io." + v.name;
          g.series.push_back({{e.name}, static_cast<double>(v.value)});
        }
      }
      if (Status s = base::list_dir(pool_dir, pool_entries_); !s) return s;
      for (const auto& f : pool_entries_) {
        if (f.name.rfind("objset-", 0) != 0) continue;
        const std::string path = pool_dir + "/" + f.name;
        if (Status s = base::read_file(path, text_); !s) return s;
        auto os = procfs::parse_zfs_objset(text_, path);
        if (!os) return os.status();
        for (const auto& v : os->values) {
          auto& g = objset[metric_name("zfs_zpool_dataset", v.name)];
          g.help = "kstat.zfs.misc.objset." + v.name;
          g.series.push_back({{e.name, os->dataset}, static_cast<double>(v.value)});
        }
      }
      if (base::read_file(pool_dir + "/state", text_)) states.emplace_back(e.name, procfs::parse_zfs_pool_state(text_));
    }
    for (const auto& [name, g] : io) {
      auto f = out.family(name, g.help, MetricType::kUntyped, {"zpool"});
      for (const auto& [labels, v] : g.series) f.add(labels, v);
    }
    for (const auto& [name, g] : objset) {
      auto f = out.family(name, g.help, MetricType::kUntyped, {"zpool", "dataset"});
      for (const auto& [labels, v] : g.series) f.add(labels, v);
    }
    if (!states.empty()) {
      auto f = out.family("node_zfs_zpool_state", "kstat.zfs.misc.state", MetricType::kGauge, {"zpool", "state"});
      for (const auto& [pool, state] : states)
        for (std::string_view s : kPoolStates) f.add({pool, s}, state == s ? 1 : 0);
    }
    return Status::ok();
  }

  std::string dir_, text_;
  std::vector<base::DirEntry> entries_, pool_entries_;
};

}  // namespace

std::unique_ptr<Collector> make_zfs(const CollectorContext& ctx) {
  return std::make_unique<ZfsCollector>(ctx);
}

}  // namespace llmon::collector
