// thermal_zone collector: node_thermal_zone_temp{zone,type} from
// <sysfs>/class/thermal/thermal_zone*/ and node_cooling_device_{cur,max}_state{name,type}
// from cooling_device*/ (node_exporter 1.5 thermal_zone_linux.go).
// Types are read when the directory listing changes (or every kRescanMs);
// each cycle reads temp, cur_state and max_state through kept descriptors.
// Unlike node_exporter 1.5, which drops every series when one zone or device
// fails, a broken entry is skipped and the others are still reported; the
// cycle is marked failed all the same.
#include <optional>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/utf8.h"
#include "collector/builtin.h"
#include "procfs/thermal.h"

namespace llmon::collector {
namespace {

constexpr int64_t kRescanMs = 60'000;

bool has_numbered_prefix(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix && name[prefix.size()] >= '0' &&
         name[prefix.size()] <= '9';
}

struct Zone {
  std::string zone, type;
  base::CachedFile temp;
};

struct Cooling {
  std::string name, type;
  base::CachedFile cur, max;
  bool ok = false;  // both states read this cycle
  int64_t cur_value = 0, max_value = 0;
};

class ThermalZoneCollector final : public Collector {
 public:
  explicit ThermalZoneCollector(const CollectorContext& ctx) : dir_(ctx.fs.sys("class/thermal")) {}

  Status collect(model::SnapshotBuilder& out) override {
    Status ls = base::list_dir(dir_, entries_);
    if (!ls) {
      // No thermal class at all (containers, some VMs): nothing to report,
      // as node_exporter's empty glob.
      zones_.clear();
      coolers_.clear();
      scanned_ = false;
      return Status::ok();
    }
    const int64_t now = out.timestamp_ms();
    if (!scanned_ || names_changed() || now - scanned_ms_ >= kRescanMs || now < scanned_ms_) scan(now);

    Status result = scan_error_;
    {
      auto w = out.family("node_thermal_zone_temp", "Zone temperature in Celsius", model::MetricType::kGauge,
                          {"type", "zone"});
      for (auto& z : zones_) {
        auto text = z.temp.read();
        if (!text) {
          if (result.is_ok()) result = text.status();
          continue;
        }
        auto t = procfs::parse_thermal_temp_celsius(*text, z.temp.path());
        if (!t) {
          if (result.is_ok()) result = t.status();
          continue;
        }
        w.add({z.type, z.zone}, *t);
      }
    }
    for (auto& c : coolers_) {
      auto cur = read_int(c.cur, result);
      auto max = cur ? read_int(c.max, result) : std::nullopt;
      c.ok = cur && max;
      if (c.ok) {
        c.cur_value = *cur;
        c.max_value = *max;
      }
    }
    // Both families list the same devices: a device is shown only when both states read.
    {
      auto w = out.family("node_cooling_device_cur_state", "Current throttle state of the cooling device",
                          model::MetricType::kGauge, {"name", "type"});
      for (const auto& c : coolers_)
        if (c.ok) w.add({c.name, c.type}, static_cast<double>(c.cur_value));
    }
    {
      auto w = out.family("node_cooling_device_max_state", "Maximum throttle state of the cooling device",
                          model::MetricType::kGauge, {"name", "type"});
      for (const auto& c : coolers_)
        if (c.ok) w.add({c.name, c.type}, static_cast<double>(c.max_value));
    }
    return result;
  }

 private:
  std::optional<int64_t> read_int(base::CachedFile& f, Status& result) {
    auto text = f.read();
    if (!text) {
      if (result.is_ok()) result = text.status();
      return std::nullopt;
    }
    auto v = procfs::parse_sysfs_int(*text, f.path());
    if (!v) {
      if (result.is_ok()) result = v.status();
      return std::nullopt;
    }
    return *v;
  }

  bool names_changed() const {
    if (entries_.size() != names_.size()) return true;
    for (size_t i = 0; i < names_.size(); ++i)
      if (entries_[i].name != names_[i]) return true;
    return false;
  }

  void scan(int64_t now) {
    scanned_ = true;
    scanned_ms_ = now;
    scan_error_ = Status::ok();
    names_.clear();
    for (const auto& e : entries_) names_.push_back(e.name);
    zones_.clear();
    coolers_.clear();
    for (const auto& e : entries_) {
      const std::string d = dir_ + "/" + e.name;
      if (has_numbered_prefix(e.name, "thermal_zone")) {
        auto type = base::read_file(d + "/type");
        auto policy = type ? base::read_file(d + "/policy") : Expected<std::string>(type.status());
        if (!policy) {  // type and policy are required, as in prometheus/procfs
          if (scan_error_.is_ok()) scan_error_ = policy.status();
          continue;
        }
        zones_.push_back({e.name.substr(std::string_view("thermal_zone").size()),
                          base::to_valid_utf8(procfs::sysfs_trimmed(*type)), base::CachedFile(d + "/temp")});
      } else if (has_numbered_prefix(e.name, "cooling_device")) {
        auto type = base::read_file(d + "/type");
        if (!type) {
          if (scan_error_.is_ok()) scan_error_ = type.status();
          continue;
        }
        coolers_.push_back({e.name.substr(std::string_view("cooling_device").size()),
                            base::to_valid_utf8(procfs::sysfs_trimmed(*type)), base::CachedFile(d + "/cur_state"),
                            base::CachedFile(d + "/max_state")});
      }
    }
  }

  std::string dir_;
  std::vector<base::DirEntry> entries_;
  std::vector<std::string> names_;
  std::vector<Zone> zones_;
  std::vector<Cooling> coolers_;
  Status scan_error_;
  int64_t scanned_ms_ = 0;
  bool scanned_ = false;
};

}  // namespace

std::unique_ptr<Collector> make_thermal_zone(const CollectorContext& ctx) {
  return std::make_unique<ThermalZoneCollector>(ctx);
}

}  // namespace llmon::collector
