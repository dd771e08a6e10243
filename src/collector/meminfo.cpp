// meminfo collector (node_exporter 1.5 meminfo.go / meminfo_linux.go): one
// family per /proc/meminfo field, node_memory_<Key>[_bytes]; keys ending in
// "_total" are counters, the rest gauges. Names, help texts and types are
// computed when the field list changes, not every cycle.
#include "procfs/meminfo.h"

#include <string>
#include <vector>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/builtin.h"
#include "model/metric.h"

namespace llmon::collector {
namespace {

struct FieldInfo {
  std::string raw_key;
  bool has_unit = false;
  std::string name, help;
  model::MetricType type = model::MetricType::kGauge;
  bool valid = true;      // false: the kernel's name makes no valid metric name
  bool shadowed = false;  // a later line has the same key (node_exporter keeps the last)
};

class MeminfoCollector final : public Collector {
 public:
  explicit MeminfoCollector(const CollectorContext& ctx) : file_(ctx.fs.proc("meminfo")) {}

  Status collect(model::SnapshotBuilder& out) override {
    auto text = file_.read();
    if (!text) return text.status();
    Status s = procfs::parse_meminfo(*text, fields_, file_.path());
    if (!s) return s.with_context("couldn't get meminfo");
    if (!same_layout()) rebuild();
    const FieldInfo* bad = nullptr;
    for (size_t i = 0; i < fields_.size(); ++i) {
      const FieldInfo& f = info_[i];
      if (!f.valid) {
        bad = &f;
        continue;
      }
      if (f.shadowed) continue;
      out.family(f.name, f.help, f.type).add(fields_[i].value);
    }
    if (bad)
      return Status::error(file_.path() + ": field \"" + bad->raw_key + "\" gives the invalid metric name \"" +
                           bad->name + "\"");
    return Status::ok();
  }

 private:
  bool same_layout() const {
    if (info_.size() != fields_.size()) return false;
    for (size_t i = 0; i < fields_.size(); ++i)
      if (info_[i].has_unit != fields_[i].has_unit || info_[i].raw_key != fields_[i].raw_key) return false;
    return true;
  }

  void rebuild() {
    info_.assign(fields_.size(), FieldInfo{});
    for (size_t i = 0; i < fields_.size(); ++i) {
      FieldInfo& f = info_[i];
      f.raw_key.assign(fields_[i].raw_key);
      f.has_unit = fields_[i].has_unit;
      std::string key = procfs::meminfo_key(f.raw_key, f.has_unit);
      f.name = "node_memory_" + key;
      f.help = "Memory information field " + key + ".";
      f.type = key.ends_with("_total") ? model::MetricType::kCounter : model::MetricType::kGauge;
      f.valid = model::is_valid_metric_name(f.name);
      for (size_t j = 0; j < i; ++j)
        if (info_[j].name == f.name) info_[j].shadowed = true;
    }
  }

  base::CachedFile file_;
  std::vector<procfs::MemInfoField> fields_;
  std::vector<FieldInfo> info_;
};

}  // namespace

std::unique_ptr<Collector> make_meminfo(const CollectorContext& ctx) {
  return std::make_unique<MeminfoCollector>(ctx);
}

}  // namespace llmon::collector
