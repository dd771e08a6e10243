// Prometheus's number formatting template functions (template/template.go):
// humanize (SI prefixes), humanize1024 (binary prefixes), humanizeDuration,
// humanizePercentage, humanizeTimestamp and toTime, byte for byte as
// Prometheus 2.42 on linux/amd64 prints them (Go's %.4g, time.Time.String
// in UTC with millisecond precision, amd64's float-to-int64 conversion of
// out-of-range values). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "rules/template_value.h"

namespace llmon::rules {

std::string humanize(double v);             // 1234 -> "1.234k", 0.001 -> "1m"
std::string humanize_1024(double v);        // 1048576 -> "1Mi"
std::string humanize_duration(double v);    // 93784 -> "1d 2h 3m 4s", 0.1234 -> "123.4ms"
std::string humanize_percentage(double v);  // 0.1234 -> "12.34%"
// "2022-01-01 00:00:00 +0000 UTC"; an error when v*1e9 overflows int64.
Expected<std::string> humanize_timestamp(double v);
// toTime: the UTC time of v seconds since the epoch, truncated to
// milliseconds; errors for NaN, ±Inf and overflow.
Expected<tmpl::Time> time_from_seconds(double v);

// Go's time.Time.String() of a UTC time: "2006-01-02 15:04:05.999999999 +0000 UTC".
std::string go_time_string(const tmpl::Time& t);
// Go's %.4g.
std::string go_g4(double v);
// int64(v) as Go compiles it on amd64: NaN and out-of-range values give
// math.MinInt64.
int64_t go_float_to_int64(double v);

}  // namespace llmon::rules
