// meminfo_numa collector (node_exporter 1.5 meminfo_numa_linux.go, off by
// default): for each /sys/devices/system/node/node<N>, one gauge per meminfo
// field, node_memory_numa_<Key>{node} (bytes, without a _bytes suffix), and
// one counter per numastat line, node_memory_numa_<name>_total{node}. The
// meminfo series take their node label from the line ("Node 0 ..."), the
// numastat ones from the directory name, as node_exporter. No node
// directories: nothing, success 1 (node_exporter's empty glob). A missing or
// malformed file fails the collector ("couldn't get NUMA meminfo").
#include "procfs/meminfo_numa.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "model/metric.h"

namespace llmon::collector {
namespace {

class MeminfoNumaCollector final : public Collector {
 public:
  explicit MeminfoNumaCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("devices/system/node")) {}

  Status collect(model::SnapshotBuilder& out) override {
    Status s = gather();
    if (!s) return s.with_context("couldn't get NUMA meminfo");
    for (Entry& e : entries_) {
      if (e.values.empty()) continue;
      auto fam = out.family(e.name, e.help, e.type, {"node"});
      for (const auto& [node, value] : e.values) fam.add({node}, value);
      e.values.clear();
    }
    return invalid_.empty() ? Status::ok()
                            : Status::error("couldn't get NUMA meminfo: \"" + invalid_ + "\" is no valid metric name");
  }

 private:
  struct Entry {
    std::string name, help;
    model::MetricType type = model::MetricType::kGauge;
    std::vector<std::pair<std::string, double>> values;  // node label, value
  };

  Status gather() {
    for (Entry& e : entries_) e.values.clear();
    invalid_.clear();
    if (Status s = base::list_dir(dir_, dirents_); !s) return Status::ok();  // no NUMA sysfs: an empty glob
    for (const base::DirEntry& d : dirents_) {
      const std::string& n = d.name;
      if (n.size() < 5 || n.compare(0, 4, "node") != 0 || n[4] < '0' || n[4] > '9') continue;
      std::string base = dir_ + "/" + n;
      if (Status s = base::read_file(base + "/meminfo", text_); !s) return s;
      if (Status s = procfs::parse_node_meminfo(text_, base + "/meminfo", meminfo_); !s) return s;
      for (const auto& f : meminfo_) add(procfs::node_meminfo_key(f.key), model::MetricType::kGauge, f.node, f.value);
      if (Status s = base::read_file(base + "/numastat", text_); !s) return s;
      if (Status s = procfs::parse_node_numastat(text_, base + "/numastat", numastat_); !s) return s;
      size_t digits = 4;
      while (digits < n.size() && n[digits] >= '0' && n[digits] <= '9') ++digits;
      std::string_view node = std::string_view(n).substr(4, digits - 4);
      for (const auto& f : numastat_) add(std::string(f.name) + "_total", model::MetricType::kCounter, node, f.value);
    }
    return Status::ok();
  }

  void add(const std::string& key, model::MetricType type, std::string_view node, double value) {
    auto [it, fresh] = index_.try_emplace(key, entries_.size());
    if (fresh) {
      Entry e;
      e.name = "node_memory_numa_" + key;
      e.help = "Memory information field " + key + ".";
      e.type = type;
      entries_.push_back(std::move(e));
    }
    Entry& e = entries_[it->second];
    if (!model::is_valid_metric_name(e.name)) {
      invalid_ = e.name;
      return;
    }
    e.values.emplace_back(std::string(node), value);
  }

  std::string dir_;
  std::vector<base::DirEntry> dirents_;
  std::string text_;
  std::vector<procfs::NodeMemInfoField> meminfo_;
  std::vector<procfs::NumaStatField> numastat_;
  std::vector<Entry> entries_;                     // first-seen order
  std::unordered_map<std::string, size_t> index_;  // key -> entries_ index
  std::string invalid_;
};

}  // namespace

std::unique_ptr<Collector> make_meminfo_numa(const CollectorContext& ctx) {
  return std::make_unique<MeminfoNumaCollector>(ctx);
}

}  // namespace llmon::collector
