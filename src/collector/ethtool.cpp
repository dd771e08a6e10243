// ethtool collector (node_exporter 1.5 ethtool_linux.go, off by default): per
// interface of <sysfs>/class/net (entries that are not regular files, sorted)
// that --collector.ethtool.device-include/-exclude keep, SIOCETHTOOL's
//   ETHTOOL_GSET     -> node_network_{supported,advertised}_speed_bytes{device,duplex,mode},
//                       node_network_supported_port_info{device,type}, node_network_
//                       {autonegotiate,pause,asymmetricpause}_{supported,advertised}, node_network_autonegotiate
//   ETHTOOL_GDRVINFO -> node_ethtool_info{bus_info,device,driver,expansion_rom_version,firmware_version,version}
//   ETHTOOL_GSTRINGS + ETHTOOL_GSTATS -> one untyped node_ethtool_<stat>{device} per driver statistic
//                       whose name --collector.ethtool.metrics-include matches (procfs/ethtool.h names them).
// As 1.5, a failed ioctl only leaves that part of the interface out (logged:
// EOPNOTSUPP at debug, others at error; here once per change, not every cycle)
// and the collector still succeeds; a missing or unreadable class/net is "no
// data", an empty one an error. 1.5 calls GDRVINFO again inside its Stats();
// here its n_stats is reused (4 ioctls per interface, none for the stats of a
// driver without any), and the stat names are turned into families once per
// distinct GSTRINGS answer, not every cycle.
#include "procfs/ethtool.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/dir_list.h"
#include "collector/builtin.h"
#include "collector/device_filter.h"
#include "collector/ethtool_ioctl.h"
#include "collector/option_regex.h"
#include "collector/options.h"

namespace llmon::collector {
namespace {

using procfs::ethtool_mode_set;

constexpr uint32_t kNone = UINT32_MAX;
constexpr char kInfoFamily[] = "node_ethtool_info";

// What one interface answered this cycle.
struct Device {
  std::string name;
  bool has_info = false, has_link = false;
  EthtoolDriverInfo info;
  EthtoolLinkSettings link;
};

// Kept per interface between cycles: the last errno logged per call, and the
// stats plan made from the last GSTRINGS answer.
struct DeviceState {
  int link_err = 0, info_err = 0, stats_err = 0;
  bool seen = false;
  std::string names;                                // the GSTRINGS answer the plan was made from
  std::vector<std::pair<uint32_t, uint32_t>> plan;  // (stat index, entry) to expose
};

// A distinct stat name (as the driver spells it) and where it goes.
struct Entry {
  std::string key;  // buildEthtoolFQName: the duplicate check's key
  std::string help;
  uint32_t family = kNone;  // kNone: not exposed (metrics-include, empty or reserved name)
};

struct Point {
  uint32_t device;  // index into devices_
  double value;
};

struct StatFamily {
  std::string name;
  uint32_t help_entry = kNone;  // whose help this cycle's series carry (the first device's)
  std::vector<Point> points;
};

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using NameMap = std::unordered_map<std::string, V, Hash, std::equal_to<>>;

std::string errno_text(int err) {
  return std::strerror(err);
}

class EthtoolCollector final : public Collector {
 public:
  EthtoolCollector(const CollectorContext& ctx, std::unique_ptr<EthtoolSource> source)
      : dir_(ctx.fs.sys("class/net")),
        log_(ctx.log),
        source_(std::move(source)),
        filter_(ctx.option(flag::kCollectorEthtoolDeviceExclude), ctx.option(flag::kCollectorEthtoolDeviceInclude)) {
    regex_error_ = compile_option_regex(ctx, flag::kCollectorEthtoolMetricsInclude, metrics_include_);
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_error_.empty()) return Status::error(regex_error_);
    if (!filter_.status()) return filter_.status();
    if (Status s = base::list_dir(dir_, listing_); !s) {
      const int err = errno;  // list_dir's failing call's
      if (err == ENOENT || err == EACCES || err == EPERM)
        return Status::no_data("Could not read netclass file: " + s.message());
      return s.with_context("could not get net class info");
    }
    if (listing_.empty()) return Status::error("no network devices found");
    if (int e = source_->open()) return Status::error("failed to initialize ethtool library: " + errno_text(e));

    for (auto& [name, st] : states_) st.seen = false;
    for (auto& f : families_) {
      f.points.clear();
      f.help_entry = kNone;
    }
    used_ = 0;
    for (const auto& e : listing_) {
      if (e.kind == base::EntryKind::kFile || filter_.ignored(e.name)) continue;
      read_device(e.name);
    }
    std::erase_if(states_, [](const auto& kv) { return !kv.second.seen; });
    write(out);
    return Status::ok();
  }

 private:
  void read_device(const std::string& name) {
    if (used_ == devices_.size()) devices_.emplace_back();
    Device& d = devices_[used_];
    const auto index = static_cast<uint32_t>(used_++);
    d.name = name;
    DeviceState& st = states_[name];
    st.seen = true;

    int e = source_->link_settings(name, d.link);
    d.has_link = e == 0;
    note(st.link_err, e, "ethtool link info error", name);
    e = source_->driver_info(name, d.info);
    d.has_info = e == 0;
    note(st.info_err, e, "ethtool driver info error", name);
    if (!d.has_info || d.info.n_stats == 0) return;  // 1.5's Stats() asks GDRVINFO too; no stats, nothing to ask
    if (d.info.n_stats > procfs::kEthtoolMaxStats) {
      note(st.stats_err, E2BIG, "ethtool stats error", name,
           "ethtool currently doesn't support more than " + std::to_string(procfs::kEthtoolMaxStats) +
               " entries, received " + std::to_string(d.info.n_stats));
      return;
    }
    std::string_view names;
    std::span<const uint64_t> values;
    e = source_->stats(name, d.info.n_stats, names, values);
    note(st.stats_err, e, "ethtool stats error", name);
    if (e != 0) return;
    if (values.size() != d.info.n_stats || names.size() != values.size() * procfs::kEthtoolStringLen) {
      if (log_)
        log_->debug("ethtool: the driver's stat set changed between two calls; skipped for a cycle",
                    {{"device", name}});
      return;
    }
    if (names != st.names) plan(st, names, name);
    for (auto [stat, entry] : st.plan) {
      StatFamily& f = families_[entries_[entry].family];
      if (f.help_entry == kNone) f.help_entry = entry;
      if (f.help_entry != entry) continue;  // another stat's help: 1.5's registry drops the series
      f.points.push_back({index, static_cast<double>(values[stat])});
    }
  }

  // 1.5's steps for one GSTRINGS answer: a map by name (a repeated name keeps
  // its last value), metrics-include on the driver's name, then the names
  // whose duplicate-check keys coincide dropped, all of them.
  void plan(DeviceState& st, std::string_view names, const std::string& device) {
    st.names.assign(names);
    st.plan.clear();
    if (!procfs::split_ethtool_strings(st.names, split_)) return;
    last_.clear();
    for (size_t i = 0; i < split_.size(); ++i)
      if (!split_[i].empty()) last_[split_[i]] = static_cast<uint32_t>(i);
    for (const auto& [stat, i] : last_) st.plan.emplace_back(i, entry_for(stat));  // may grow entries_
    key_count_.clear();
    for (auto [i, id] : st.plan)
      if (entries_[id].family != kNone) ++key_count_[entries_[id].key];
    std::erase_if(st.plan, [&](std::pair<uint32_t, uint32_t> p) {
      const Entry& en = entries_[p.second];
      if (en.family == kNone) return true;
      if (key_count_[en.key] == 1) return false;
      if (log_) log_->debug("dropping duplicate metric name", {{"device", device}, {"metricFQName", en.key}});
      return true;
    });
  }

  uint32_t entry_for(std::string_view stat) {
    if (auto it = entry_ids_.find(stat); it != entry_ids_.end()) return it->second;
    Entry en;
    if (std::regex_search(stat.begin(), stat.end(), metrics_include_)) {
      en.key = procfs::ethtool_stat_family(stat);
      auto name = procfs::ethtool_stat_name(stat);
      en.help = std::move(name.help);
      // An empty name (1.5 panics) or the info family's (its labels differ) is not exposed.
      if (!en.key.empty() && name.family != kInfoFamily) en.family = family_for(name.family);
    }
    const auto id = static_cast<uint32_t>(entries_.size());
    entries_.push_back(std::move(en));
    entry_ids_.emplace(std::string(stat), id);
    return id;
  }

  uint32_t family_for(const std::string& name) {
    if (auto it = family_ids_.find(name); it != family_ids_.end()) return it->second;
    const auto id = static_cast<uint32_t>(families_.size());
    families_.push_back({name, kNone, {}});
    family_ids_.emplace(name, id);
    order_.insert(std::upper_bound(order_.begin(), order_.end(), id,
                                   [&](uint32_t a, uint32_t b) { return families_[a].name < families_[b].name; }),
                  id);
    return id;
  }

  // Logs a call's failure when it differs from the last one logged for it.
  void note(int& last, int err, std::string_view msg, const std::string& device, const std::string& text = {}) {
    if (err == last) return;
    last = err;
    if (err == 0 || !log_) return;
    const std::string why = text.empty() ? errno_text(err) : text;
    const std::string num = std::to_string(err);
    if (err == EOPNOTSUPP)
      log_->debug(msg, {{"collector", "ethtool"}, {"err", why}, {"device", device}, {"errno", num}});
    else
      log_->error(msg, {{"collector", "ethtool"}, {"err", why}, {"device", device}, {"errno", num}});
  }

  void write(model::SnapshotBuilder& out) {
    const std::span<const Device> devs(devices_.data(), used_);
    {
      auto w = out.family(kInfoFamily,
                          "A metric with a constant '1' value labeled by bus_info, device, driver, "
                          "expansion_rom_version, firmware_version, version.",
                          model::MetricType::kGauge,
                          {"bus_info", "device", "driver", "expansion_rom_version", "firmware_version", "version"});
      for (const auto& d : devs)
        if (d.has_info)
          w.add({d.info.bus_info, d.name, d.info.driver, d.info.erom_version, d.info.fw_version, d.info.version}, 1);
    }
    write_link(out, devs);
    for (uint32_t id : order_) {
      const StatFamily& f = families_[id];
      const std::string& help = f.help_entry == kNone ? empty_ : entries_[f.help_entry].help;
      auto w = out.family(f.name, help, model::MetricType::kUntyped, {"device"});
      for (const auto& p : f.points) w.add({devs[p.device].name}, p.value);
    }
  }

  static void write_link(model::SnapshotBuilder& out, std::span<const Device> devs) {
    constexpr double kBytesPerMbps = 1e6 / 8;  // bytes, to match netclass's node_network_speed_bytes
    auto flag_family = [&](std::string_view name, std::string_view help, auto value) {
      auto w = out.family(name, help, model::MetricType::kGauge, {"device"});
      for (const auto& d : devs)
        if (d.has_link) w.add({d.name}, value(d.link));
    };
    auto bit = [](bool advertised, uint8_t b) {
      return [=](const EthtoolLinkSettings& l) {
        return ethtool_mode_set(advertised ? l.advertising : l.supported, b) ? 1.0 : 0.0;
      };
    };
    auto speeds = [&](std::string_view name, std::string_view help, bool advertised) {
      auto w = out.family(name, help, model::MetricType::kGauge, {"device", "duplex", "mode"});
      for (const auto& d : devs) {
        if (!d.has_link) continue;
        for (const auto& m : procfs::ethtool_speed_modes())
          if (ethtool_mode_set(advertised ? d.link.advertising : d.link.supported, m.bit))
            w.add({d.name, m.duplex, m.mode}, m.mbps * kBytesPerMbps);
      }
    };
    using procfs::kEthtoolAsymPauseBit, procfs::kEthtoolAutonegBit, procfs::kEthtoolPauseBit;
    speeds("node_network_advertised_speed_bytes", "Combination of speeds and features offered by network device", true);
    flag_family("node_network_asymmetricpause_advertised", "If this port device offers asymmetric pause capability",
                bit(true, kEthtoolAsymPauseBit));
    flag_family("node_network_asymmetricpause_supported", "If this port device supports asymmetric pause frames",
                bit(false, kEthtoolAsymPauseBit));
    flag_family("node_network_autonegotiate", "If this port is using autonegotiate",
                [](const EthtoolLinkSettings& l) { return static_cast<double>(l.autoneg); });
    flag_family("node_network_autonegotiate_advertised", "If this port device offers autonegotiate",
                bit(true, kEthtoolAutonegBit));
    flag_family("node_network_autonegotiate_supported", "If this port device supports autonegotiate",
                bit(false, kEthtoolAutonegBit));
    flag_family("node_network_pause_advertised", "If this port device offers pause capability",
                bit(true, kEthtoolPauseBit));
    flag_family("node_network_pause_supported", "If this port device supports pause frames",
                bit(false, kEthtoolPauseBit));
    {
      auto w = out.family("node_network_supported_port_info", "Type of ports or PHYs supported by network device",
                          model::MetricType::kGauge, {"device", "type"});
      for (const auto& d : devs)
        if (d.has_link)
          for (const auto& p : procfs::ethtool_port_types())
            if (ethtool_mode_set(d.link.supported, p.bit)) w.add({d.name, p.type}, 1);
    }
    speeds("node_network_supported_speed_bytes", "Combination of speeds and features supported by network device",
           false);
  }

  std::string dir_;
  base::Logger* log_;
  std::unique_ptr<EthtoolSource> source_;
  DeviceFilter filter_;
  std::regex metrics_include_;
  std::string regex_error_;
  std::vector<base::DirEntry> listing_;
  std::vector<Device> devices_;  // this cycle's first used_ are valid; storage recycled
  size_t used_ = 0;
  NameMap<DeviceState> states_;
  std::vector<Entry> entries_;   // by id
  NameMap<uint32_t> entry_ids_;  // the driver's stat name -> id
  std::vector<StatFamily> families_;
  NameMap<uint32_t> family_ids_;
  std::vector<uint32_t> order_;  // families_ by name
  const std::string empty_;
  // plan()'s scratch
  std::vector<std::string_view> split_;
  std::unordered_map<std::string_view, uint32_t> last_;
  std::unordered_map<std::string_view, uint32_t> key_count_;
};

}  // namespace

std::unique_ptr<Collector> make_ethtool_with(const CollectorContext& ctx, std::unique_ptr<EthtoolSource> source) {
  return std::make_unique<EthtoolCollector>(ctx, std::move(source));
}

std::unique_ptr<Collector> make_ethtool(const CollectorContext& ctx) {
  return make_ethtool_with(ctx, make_ioctl_ethtool_source());
}

}  // namespace llmon::collector
