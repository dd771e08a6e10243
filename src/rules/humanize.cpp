// Prometheus's humanize* template functions (humanize.h).
#include "rules/humanize.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "base/civil_time.h"
#include "go/strconv.h"

namespace llmon::rules {

namespace {

constexpr const char* kBigPrefixes[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
constexpr const char* kSmallPrefixes[] = {"m", "u", "n", "p", "f", "a", "z", "y"};
constexpr const char* kBinaryPrefixes[] = {"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};

std::string with_prefix(double v, const char* prefix) {
  return go_g4(v) + prefix;
}

}  // namespace

std::string go_g4(double v) {
  return go::format_float(v, 'g', 4);
}

int64_t go_float_to_int64(double v) {
  // CVTTSD2SI yields 0x8000000000000000 for NaN and out-of-range inputs.
  if (std::isnan(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

std::string humanize(double v) {
  if (v == 0 || std::isnan(v) || std::isinf(v)) return go_g4(v);
  const char* prefix = "";
  if (std::fabs(v) >= 1) {
    for (const char* p : kBigPrefixes) {
      if (std::fabs(v) < 1000) break;
      prefix = p;
      v /= 1000;
    }
    return with_prefix(v, prefix);
  }
  for (const char* p : kSmallPrefixes) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return with_prefix(v, prefix);
}

std::string humanize_1024(double v) {
  if (std::fabs(v) <= 1 || std::isnan(v) || std::isinf(v)) return go_g4(v);
  const char* prefix = "";
  for (const char* p : kBinaryPrefixes) {
    if (std::fabs(v) < 1024) break;
    prefix = p;
    v /= 1024;
  }
  return with_prefix(v, prefix);
}

std::string humanize_duration(double v) {
  if (std::isnan(v) || std::isinf(v)) return go_g4(v);
  if (v == 0) return go_g4(v) + "s";
  if (std::fabs(v) >= 1) {
    std::string sign;
    if (v < 0) {
      sign = "-";
      v = -v;
    }
    const int64_t duration = go_float_to_int64(v);
    const int64_t seconds = duration % 60;
    const int64_t minutes = (duration / 60) % 60;
    const int64_t hours = (duration / 60 / 60) % 24;
    const int64_t days = duration / 60 / 60 / 24;
    char buf[160];
    if (days != 0) {
      std::snprintf(buf, sizeof buf, "%s%lldd %lldh %lldm %llds", sign.c_str(), static_cast<long long>(days),
                    static_cast<long long>(hours), static_cast<long long>(minutes), static_cast<long long>(seconds));
      return buf;
    }
    if (hours != 0) {
      std::snprintf(buf, sizeof buf, "%s%lldh %lldm %llds", sign.c_str(), static_cast<long long>(hours),
                    static_cast<long long>(minutes), static_cast<long long>(seconds));
      return buf;
    }
    if (minutes != 0) {
      std::snprintf(buf, sizeof buf, "%s%lldm %llds", sign.c_str(), static_cast<long long>(minutes),
                    static_cast<long long>(seconds));
      return buf;
    }
    return sign + go_g4(v) + "s";
  }
  const char* prefix = "";
  for (const char* p : kSmallPrefixes) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return go_g4(v) + prefix + "s";
}

std::string humanize_percentage(double v) {
  return go_g4(v * 100) + "%";
}

Expected<tmpl::Time> time_from_seconds(double v) {
  if (std::isnan(v) || std::isinf(v)) return Status::error("value is NaN or Inf");
  const double ns = v * 1e9;
  if (ns > 9223372036854775807.0 || ns < -9223372036854775808.0) {
    return Status::error(go::format_float(v, 'g', -1) +
                         " cannot be represented as a nanoseconds timestamp since it overflows int64");
  }
  // model.TimeFromUnixNano (integer milliseconds, truncated), then
  // time.Unix(ms/1000, ms%1000*1e6).
  const int64_t ms = go_float_to_int64(ns) / 1000000;
  int64_t sec = ms / 1000;
  int64_t nsec = (ms % 1000) * 1000000;
  if (nsec < 0) {
    nsec += 1000000000;
    --sec;
  }
  return tmpl::Time{sec, static_cast<int32_t>(nsec)};
}

Expected<std::string> humanize_timestamp(double v) {
  if (std::isnan(v) || std::isinf(v)) return go_g4(v);
  auto t = time_from_seconds(v);
  if (!t) return t.status();
  return go_time_string(*t);
}

std::string go_time_string(const tmpl::Time& t) {
  const int64_t days = t.sec >= 0 ? t.sec / 86400 : -((-t.sec + 86399) / 86400);
  const int64_t secs = t.sec - days * 86400;
  const base::CivilDate date = base::civil_from_days(days);
  const int64_t y = date.year;
  const unsigned m = date.month, d = date.day;
  char buf[96];
  const char* sign = y < 0 ? "-" : "";
  std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02u %02lld:%02lld:%02lld", sign,
                static_cast<long long>(y < 0 ? -y : y), m, d, static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string out = buf;
  if (t.nsec != 0) {
    std::snprintf(buf, sizeof buf, ".%09d", t.nsec);
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  return out + " +0000 UTC";
}

}  // namespace llmon::rules
