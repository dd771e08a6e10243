// bcache collector (node_exporter 1.5 bcache_linux.go over its procfs'
// bcache package): per cache set /sys/fs/bcache/<uuid>/ (entries named *-*,
// sorted) the set's values and internal/ counters {uuid}; per backing device
// bdev<N>/ its dirty data, writeback_rate_debug and stats_total/ counters
// {uuid,backing_device}; per cache device cache<N>/ its error and write
// counters, and with --collector.bcache.priorityStats (off by default, as
// 1.5: the kernel walks every bucket to print it) priority_stats'
// unused and metadata percentages {uuid,cache_device}.
//
// As procfs: a value file that does not exist reads 0, and stats_five_minute/
// is parsed though not exported; a value that does not parse, an unreadable
// file, a missing writeback_rate_debug or (when asked for) priority_stats fail
// the whole collection with the file named. No /sys/fs/bcache (no bcache
// module) is success with no series, as 1.5's empty glob. An empty value file
// is an error (node_exporter 1.5 panics on it).
#include "procfs/bcache.h"

#include <cerrno>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/options.h"

namespace llmon::collector {
namespace {

using model::MetricType;

struct Value {
  const char* file;  // relative to the cache set
  const char* name;
  const char* help;
  MetricType type;
  double scale;
};

// The cache set's values, in node_exporter's order.
constexpr Value kSetValues[] = {
    {"average_key_size", "node_bcache_average_key_size_sectors", "Average data per key in the btree (sectors).",
     MetricType::kGauge, 1},
    {"btree_cache_size", "node_bcache_btree_cache_size_bytes", "Amount of memory currently used by the btree cache.",
     MetricType::kGauge, 1},
    {"cache_available_percent", "node_bcache_cache_available_percent",
     "Percentage of cache device without dirty data, usable for writeback (may contain clean cached data).",
     MetricType::kGauge, 1},
    {"congested", "node_bcache_congested", "Congestion.", MetricType::kGauge, 1},
    {"root_usage_percent", "node_bcache_root_usage_percent",
     "Percentage of the root btree node in use (tree depth increases if too high).", MetricType::kGauge, 1},
    {"tree_depth", "node_bcache_tree_depth", "Depth of the btree.", MetricType::kGauge, 1},
    {"internal/active_journal_entries", "node_bcache_active_journal_entries",
     "Number of journal entries that are newer than the index.", MetricType::kGauge, 1},
    {"internal/btree_nodes", "node_bcache_btree_nodes", "Total nodes in the btree.", MetricType::kGauge, 1},
    // procfs files the microseconds as nanoseconds; 1.5 exports them times 1e-9.
    {"internal/btree_read_average_duration_us", "node_bcache_btree_read_average_duration_seconds",
     "Average btree read duration.", MetricType::kGauge, 1e-9},
    {"internal/cache_read_races", "node_bcache_cache_read_races_total",
     "Counts instances where while data was being read from the cache, the bucket was reused and invalidated - "
     "i.e. where the pointer was stale after the read completed.",
     MetricType::kCounter, 1},
};

// stats_total/ and stats_five_minute/ files, with the stats_total families.
constexpr Value kPeriodValues[] = {
    {"bypassed", "node_bcache_bypassed_bytes_total",
     "Amount of IO (both reads and writes) that has bypassed the cache.", MetricType::kCounter, 1},
    {"cache_hits", "node_bcache_cache_hits_total", "Hits counted per individual IO as bcache sees them.",
     MetricType::kCounter, 1},
    {"cache_misses", "node_bcache_cache_misses_total", "Misses counted per individual IO as bcache sees them.",
     MetricType::kCounter, 1},
    {"cache_bypass_hits", "node_bcache_cache_bypass_hits_total", "Hits for IO intended to skip the cache.",
     MetricType::kCounter, 1},
    {"cache_bypass_misses", "node_bcache_cache_bypass_misses_total", "Misses for IO intended to skip the cache.",
     MetricType::kCounter, 1},
    {"cache_miss_collisions", "node_bcache_cache_miss_collisions_total",
     "Instances where data insertion from cache miss raced with write (data already present).", MetricType::kCounter,
     1},
    {"cache_readaheads", "node_bcache_cache_readaheads_total", "Count of times readahead occurred.",
     MetricType::kCounter, 1},
};
constexpr size_t kPeriods = std::size(kPeriodValues);

// A cache device's value files, with their families.
constexpr Value kCacheValues[] = {
    {"io_errors", "node_bcache_io_errors", "Number of errors that have occurred, decayed by io_error_halflife.",
     MetricType::kGauge, 1},
    {"metadata_written", "node_bcache_metadata_written_bytes_total",
     "Sum of all non data writes (btree writes and all other metadata).", MetricType::kCounter, 1},
    {"written", "node_bcache_written_bytes_total", "Sum of all data that has been written to the cache.",
     MetricType::kCounter, 1},
};

struct Bdev {
  std::string name;
  uint64_t dirty_data = 0;
  procfs::BcacheWritebackRateDebug writeback;
  uint64_t total[kPeriods] = {};
};

struct Cache {
  std::string name;
  uint64_t values[std::size(kCacheValues)] = {};
  procfs::BcachePriorityStats priority;
};

struct CacheSet {
  std::string uuid;
  uint64_t values[std::size(kSetValues)] = {};
  std::vector<Bdev> bdevs;
  std::vector<Cache> caches;
};

// bdev[0-9]* / cache[0-9]*, as procfs' globs.
bool numbered(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix && name[prefix.size()] >= '0' &&
         name[prefix.size()] <= '9';
}

class BcacheCollector final : public Collector {
 public:
  explicit BcacheCollector(const CollectorContext& ctx)
      : dir_(ctx.fs.sys("fs/bcache")), priority_stats_(ctx.option(flag::kCollectorBcachePriorityStats)) {}

  Status collect(model::SnapshotBuilder& out) override {
    sets_.clear();
    if (!base::list_dir(dir_, entries_)) return Status::ok();  // no bcache module: nothing, as the empty glob
    for (const auto& e : entries_) {
      if (e.name.find('-') == std::string::npos) continue;  // register, register_quiet, pendings_cleanup
      CacheSet set;
      set.uuid = e.name;
      if (Status s = read_set(dir_ + "/" + e.name, set); !s) return s.with_context("failed to retrieve bcache stats");
      sets_.push_back(std::move(set));
    }
    if (sets_.empty()) return Status::ok();
    write(out);
    return Status::ok();
  }

 private:
  // A value file; 0 when it does not exist (procfs ignores missing files).
  Expected<uint64_t> read_value(const std::string& path) {
    if (Status s = base::read_file(path, text_); !s) {
      if (errno == ENOENT) return uint64_t{0};
      return s;
    }
    return procfs::parse_bcache_value(text_, path);
  }

  Status read_values(const std::string& dir, const Value* values, size_t n, uint64_t* dst) {
    for (size_t i = 0; i < n; ++i) {
      auto v = read_value(dir + "/" + values[i].file);
      if (!v) return v.status();
      dst[i] = *v;
    }
    return Status::ok();
  }

  Status read_set(const std::string& dir, CacheSet& set) {
    uint64_t period[kPeriods];
    if (Status s = read_values(dir, kSetValues, std::size(kSetValues), set.values); !s) return s;
    if (Status s = read_values(dir + "/stats_five_minute", kPeriodValues, kPeriods, period); !s) return s;
    if (Status s = read_values(dir + "/stats_total", kPeriodValues, kPeriods, period); !s) return s;
    if (!base::list_dir(dir, names_)) return Status::ok();  // procfs' globs find nothing
    std::vector<std::string> bdevs, caches;
    for (const auto& e : names_) {
      if (numbered(e.name, "bdev")) bdevs.push_back(e.name);
      if (numbered(e.name, "cache")) caches.push_back(e.name);
    }
    for (const auto& name : bdevs) {
      Bdev b;
      b.name = name;
      const std::string bdir = dir + "/" + name;
      auto dirty = read_value(bdir + "/dirty_data");
      if (!dirty) return dirty.status();
      b.dirty_data = *dirty;
      const std::string wrd = bdir + "/writeback_rate_debug";
      if (Status s = base::read_file(wrd, text_); !s) return s;
      if (Status s = procfs::parse_bcache_writeback_rate_debug(text_, wrd, b.writeback); !s) return s;
      if (Status s = read_values(bdir + "/stats_five_minute", kPeriodValues, kPeriods, period); !s) return s;
      if (Status s = read_values(bdir + "/stats_total", kPeriodValues, kPeriods, b.total); !s) return s;
      set.bdevs.push_back(std::move(b));
    }
    for (const auto& name : caches) {
      Cache c;
      c.name = name;
      const std::string cdir = dir + "/" + name;
      if (Status s = read_values(cdir, kCacheValues, std::size(kCacheValues), c.values); !s) return s;
      if (priority_stats_) {
        const std::string ps = cdir + "/priority_stats";
        if (Status s = base::read_file(ps, text_); !s) return s;
        if (Status s = procfs::parse_bcache_priority_stats(text_, ps, c.priority); !s) return s;
      }
      set.caches.push_back(std::move(c));
    }
    return Status::ok();
  }

  // A family of one series per backing (Device = Bdev) or cache device.
  template <typename Device, typename Get>
  void per_device(model::SnapshotBuilder& out, std::string_view name, std::string_view help, MetricType type, Get get) {
    constexpr bool kBdev = std::is_same_v<Device, Bdev>;
    auto f = out.family(name, help, type, {"uuid", kBdev ? "backing_device" : "cache_device"});
    for (const auto& set : sets_) {
      const std::vector<Device>* devices;
      if constexpr (kBdev)
        devices = &set.bdevs;
      else
        devices = &set.caches;
      for (const Device& d : *devices) f.add({set.uuid, d.name}, get(d));
    }
  }
  template <typename Get>
  void per_bdev(model::SnapshotBuilder& out, std::string_view name, std::string_view help, MetricType type, Get get) {
    per_device<Bdev>(out, name, help, type, get);
  }
  template <typename Get>
  void per_cache(model::SnapshotBuilder& out, std::string_view name, std::string_view help, MetricType type, Get get) {
    per_device<Cache>(out, name, help, type, get);
  }

  void write(model::SnapshotBuilder& out) {
    for (size_t i = 0; i < std::size(kSetValues); ++i) {
      const Value& v = kSetValues[i];
      auto f = out.family(v.name, v.help, v.type, {"uuid"});
      for (const auto& set : sets_) f.add({set.uuid}, static_cast<double>(set.values[i]) * v.scale);
    }
    auto u = [](uint64_t v) { return static_cast<double>(v); };
    auto s = [](int64_t v) { return static_cast<double>(v); };
    per_bdev(out, "node_bcache_dirty_data_bytes", "Amount of dirty data for this backing device in the cache.",
             MetricType::kGauge, [&](const Bdev& b) { return u(b.dirty_data); });
    per_bdev(out, "node_bcache_dirty_target_bytes",
             "Current dirty data target threshold for this backing device in bytes.", MetricType::kGauge,
             [&](const Bdev& b) { return u(b.writeback.target); });
    per_bdev(out, "node_bcache_writeback_rate", "Current writeback rate for this backing device in bytes.",
             MetricType::kGauge, [&](const Bdev& b) { return u(b.writeback.rate); });
    per_bdev(out, "node_bcache_writeback_rate_proportional_term",
             "Current result of proportional controller, part of writeback rate", MetricType::kGauge,
             [&](const Bdev& b) { return s(b.writeback.proportional); });
    per_bdev(out, "node_bcache_writeback_rate_integral_term",
             "Current result of integral controller, part of writeback rate", MetricType::kGauge,
             [&](const Bdev& b) { return s(b.writeback.integral); });
    per_bdev(out, "node_bcache_writeback_change", "Last writeback rate change step for this backing device.",
             MetricType::kGauge, [&](const Bdev& b) { return s(b.writeback.change); });
    for (size_t i = 0; i < kPeriods; ++i)
      per_bdev(out, kPeriodValues[i].name, kPeriodValues[i].help, kPeriodValues[i].type,
               [&](const Bdev& b) { return u(b.total[i]); });
    for (size_t i = 0; i < std::size(kCacheValues); ++i)
      per_cache(out, kCacheValues[i].name, kCacheValues[i].help, kCacheValues[i].type,
                [&](const Cache& c) { return u(c.values[i]); });
    if (!priority_stats_) return;
    per_cache(out, "node_bcache_priority_stats_unused_percent",
              "The percentage of the cache that doesn't contain any data.", MetricType::kGauge,
              [&](const Cache& c) { return u(c.priority.unused_percent); });
    per_cache(out, "node_bcache_priority_stats_metadata_percent", "Bcache's metadata overhead.", MetricType::kGauge,
              [&](const Cache& c) { return u(c.priority.metadata_percent); });
  }

  std::string dir_, text_;
  bool priority_stats_;
  std::vector<base::DirEntry> entries_, names_;
  std::vector<CacheSet> sets_;
};

}  // namespace

std::unique_ptr<Collector> make_bcache(const CollectorContext& ctx) {
  return std::make_unique<BcacheCollector>(ctx);
}

}  // namespace llmon::collector
