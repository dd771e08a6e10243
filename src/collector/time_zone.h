// time collector: node_time_seconds (from the injected clock),
// node_time_zone_offset_seconds{time_zone} and node_time_clocksource_{available,current}_info
// {clocksource,device} from <sysfs>/devices/system/clocksource/clocksource*/
// (node_exporter 1.5 time.go, time_linux.go). The local time zone comes from a
// function so tests can fix it; make_time(ctx) uses localtime_r.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "collector/collector.h"

namespace llmon::collector {

struct TimeZoneInfo {
  std::string name;      // abbreviation in effect, "UTC", "CEST"
  int64_t offset_s = 0;  // east of UTC
};

// Zone in effect at unix time t (seconds).
using TimeZoneSource = std::function<TimeZoneInfo(int64_t unix_s)>;

TimeZoneInfo local_time_zone(int64_t unix_s);
std::unique_ptr<Collector> make_time_with(const CollectorContext& ctx, TimeZoneSource zone);

}  // namespace llmon::collector
