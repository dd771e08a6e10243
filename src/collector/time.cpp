#include <ctime>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/time_zone.h"
#include "procfs/clocksource.h"

namespace llmon::collector {
namespace {

constexpr int64_t kRescanMs = 60'000;

bool is_clocksource_dir(std::string_view name) {
  constexpr std::string_view kPrefix = "clocksource";
  return name.size() > kPrefix.size() && name.substr(0, kPrefix.size()) == kPrefix && name[kPrefix.size()] >= '0' &&
         name[kPrefix.size()] <= '9';
}

struct Source {
  std::string device;  // index in the sorted glob, as node_exporter labels it
  base::CachedFile available, current;
};

class TimeCollector final : public Collector {
 public:
  TimeCollector(const CollectorContext& ctx, TimeZoneSource zone)
      : clock_(ctx.clock ? ctx.clock : &system_clock_),
        zone_(std::move(zone)),
        dir_(ctx.fs.sys("devices/system/clocksource")) {}

  Status collect(model::SnapshotBuilder& out) override {
    const int64_t now_ms = clock_->now_ms();
    out.family("node_time_seconds", "System time in seconds since epoch (1970).", model::MetricType::kGauge)
        .add(static_cast<double>(now_ms) / 1000.0);
    const TimeZoneInfo tz = zone_(now_ms / 1000);
    out.family("node_time_zone_offset_seconds", "System time zone offset in seconds.", model::MetricType::kGauge,
               {"time_zone"})
        .add({tz.name}, static_cast<double>(tz.offset_s));

    const int64_t ts = out.timestamp_ms();
    if (!scanned_ || ts - scanned_ms_ >= kRescanMs || ts < scanned_ms_) scan(ts);
    Status result = Status::ok();
    auto avail = out.family("node_time_clocksource_available_info",
                            "Available clocksources read from '/sys/devices/system/clocksource'.",
                            model::MetricType::kGauge, {"clocksource", "device"});
    for (auto& s : sources_) {
      auto a = s.available.read();
      if (!a) {
        if (result.is_ok()) result = a.status();
        continue;
      }
      procfs::parse_clocksource(*a, {}, parsed_);
      for (auto name : parsed_.available) avail.add({name, s.device}, 1);
    }
    auto cur = out.family("node_time_clocksource_current_info",
                          "Current clocksource read from '/sys/devices/system/clocksource'.", model::MetricType::kGauge,
                          {"clocksource", "device"});
    for (auto& s : sources_) {
      auto c = s.current.read();
      if (!c) {
        if (result.is_ok()) result = c.status();
        continue;
      }
      procfs::parse_clocksource({}, *c, parsed_);
      cur.add({parsed_.current, s.device}, 1);
    }
    return result;
  }

 private:
  void scan(int64_t ts) {
    scanned_ = true;
    scanned_ms_ = ts;
    sources_.clear();
    if (!base::list_dir(dir_, entries_)) return;  // no clocksource directory: nothing to report
    for (const auto& e : entries_) {
      if (!is_clocksource_dir(e.name)) continue;
      const std::string d = dir_ + "/" + e.name;
      sources_.push_back({std::to_string(sources_.size()), base::CachedFile(d + "/available_clocksource"),
                          base::CachedFile(d + "/current_clocksource")});
    }
  }

  base::SystemClock system_clock_;
  const base::Clock* clock_;
  TimeZoneSource zone_;
  std::string dir_;
  std::vector<base::DirEntry> entries_;
  std::vector<Source> sources_;
  procfs::Clocksource parsed_;
  int64_t scanned_ms_ = 0;
  bool scanned_ = false;
};

}  // namespace

TimeZoneInfo local_time_zone(int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  TimeZoneInfo z;
  if (!::localtime_r(&t, &tm)) {
    z.name = "UTC";
    return z;
  }
  z.name = tm.tm_zone ? tm.tm_zone : "";
  z.offset_s = tm.tm_gmtoff;
  return z;
}

std::unique_ptr<Collector> make_time_with(const CollectorContext& ctx, TimeZoneSource zone) {
  return std::make_unique<TimeCollector>(ctx, std::move(zone));
}

std::unique_ptr<Collector> make_time(const CollectorContext& ctx) {
  ::tzset();
  return make_time_with(ctx, local_time_zone);
}

}  // namespace llmon::collector
