// powersupplyclass collector (node_exporter 1.5 powersupplyclass_linux.go over
// procfs' sysfs/class_power_supply.go): per /sys/class/power_supply/<supply>
// the numeric attributes as node_power_supply_<name>{power_supply} (micro-units
// in units, tenths of a degree in degrees) and node_power_supply_info with the
// text attributes that are not empty. --collector.powersupply.ignored-supplies
// leaves supplies out by name. As node_exporter, one unparsable attribute drops
// the whole collection; no power_supply class is "no data". Attributes the
// kernel refuses to read (ENOENT, ENODEV for a removed battery, EINVAL,
// EOPNOTSUPP) are left out.
#include <algorithm>
#include <cerrno>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/utf8.h"
#include "collector/builtin.h"
#include "collector/option_regex.h"
#include "collector/options.h"
#include "procfs/power_supply.h"
#include "procfs/thermal.h"

namespace llmon::collector {
namespace {

struct Supply {
  std::string name;
  std::vector<std::optional<double>> values;                // by power_supply_values() index
  std::vector<std::pair<std::string, std::string>> labels;  // info labels, sorted by name
};

class PowerSupplyClassCollector final : public Collector {
 public:
  explicit PowerSupplyClassCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/power_supply")) {
    regex_error_ = compile_option_regex(ctx, flag::kCollectorPowersupplyIgnoredSupplies, ignored_);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_error_.empty()) return Status::error(regex_error_);
    supplies_.clear();
    if (Status s = read_all(); !s) return s;
    const auto specs = procfs::power_supply_values();
    for (size_t i = 0; i < specs.size(); ++i) {
      name_.assign("node_power_supply_").append(specs[i].metric);
      help_.assign(specs[i].metric).append(" value of /sys/class/power_supply/<power_supply>.");
      auto w = out.family(name_, help_, model::MetricType::kGauge, {"power_supply"});
      for (const auto& s : supplies_)
        if (s.values[i]) w.add({s.name}, *s.values[i]);
    }
    // Supplies have different info labels (node_exporter writes each with its
    // own): one family per distinct label set, all of one name.
    std::vector<bool> done(supplies_.size());
    for (size_t i = 0; i < supplies_.size(); ++i) {
      if (done[i]) continue;
      std::vector<std::string> names;
      for (const auto& [k, v] : supplies_[i].labels) names.push_back(k);
      auto w = out.family("node_power_supply_info", "info of /sys/class/power_supply/<power_supply>.",
                          model::MetricType::kGauge, names);
      for (size_t j = i; j < supplies_.size(); ++j) {
        if (done[j] || !same_names(supplies_[i], supplies_[j])) continue;
        done[j] = true;
        std::vector<std::string> values;
        for (const auto& [k, v] : supplies_[j].labels) values.push_back(v);
        w.add(values, 1);
      }
    }
    return Status::ok();
  }

 private:
  static bool same_names(const Supply& a, const Supply& b) {
    return std::equal(a.labels.begin(), a.labels.end(), b.labels.begin(), b.labels.end(),
                      [](const auto& x, const auto& y) { return x.first == y.first; });
  }

  static Status failed(const Status& s, int err) {
    if (err == ENOENT) return Status::no_data("no power_supply class: " + s.message());
    return s.with_context("could not get power_supply class info");
  }

  Status read_all() {
    if (Status s = base::list_dir(dir_, entries_); !s) return failed(s, errno);
    std::vector<base::DirEntry> files;
    for (const auto& e : entries_) {
      const std::string dir = dir_ + "/" + e.name;
      if (Status s = base::list_dir(dir, files); !s) return failed(s, errno);
      Supply sup{e.name, std::vector<std::optional<double>>(procfs::power_supply_values().size()), {}};
      for (const auto& f : files) {
        if (f.kind != base::EntryKind::kFile && f.kind != base::EntryKind::kUnknown) continue;
        const std::string path = dir + "/" + f.name;
        if (Status s = base::read_file(path, text_); !s) {
          const int err = errno;
          if (err == ENOENT || err == ENODEV || err == EINVAL || err == EOPNOTSUPP) continue;
          return s.with_context("could not get power_supply class info");
        }
        if (Status s = store(sup, f.name, path); !s) return s.with_context("could not get power_supply class info");
      }
      if (std::regex_search(e.name, ignored_)) continue;
      sup.labels.emplace_back("power_supply", base::to_valid_utf8(e.name));
      std::sort(sup.labels.begin(), sup.labels.end());
      supplies_.push_back(std::move(sup));
    }
    return Status::ok();
  }

  Status store(Supply& sup, const std::string& file, const std::string& path) {
    const auto specs = procfs::power_supply_values();
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].file != file) continue;
      auto v = procfs::parse_power_supply_int(text_, path);
      if (!v) return v.status();
      sup.values[i] = static_cast<double>(*v) / specs[i].divisor;
      return Status::ok();
    }
    for (const auto& l : procfs::power_supply_labels()) {
      if (l.file != file) continue;
      std::string_view value = procfs::sysfs_trimmed(text_);
      if (!value.empty()) sup.labels.emplace_back(std::string(l.label), base::to_valid_utf8(value));
      return Status::ok();
    }
    return Status::ok();
  }

  std::string dir_, text_, name_, help_, regex_error_;
  std::regex ignored_;
  std::vector<base::DirEntry> entries_;
  std::vector<Supply> supplies_;
};

}  // namespace

std::unique_ptr<Collector> make_powersupplyclass(const CollectorContext& ctx) {
  return std::make_unique<PowerSupplyClassCollector>(ctx);
}

}  // namespace llmon::collector
