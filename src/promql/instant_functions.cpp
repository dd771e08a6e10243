// See instant_functions.h. Semantics: Prometheus 2.42 promql/functions.go;
// Go's math.Log2/Log10/Min/Max formulas and the time package's calendar
// arithmetic (Go 1.19, which Debian's Prometheus 2.42 is built with).
#include "promql/instant_functions.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace llmon::promql {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846264338327950288;
// 1/ln 2 and 1/ln 10, correctly rounded (Go evaluates these constants exactly).
constexpr double kInvLn2 = 1.44269504088896340735992468100189214;
constexpr double kInvLn10 = 0.434294481903251827651128918916605082;

double from_bits(uint64_t b) {
  return std::bit_cast<double>(b);
}

// Go's math.Log, the FreeBSD msun (fdlibm) e_log.c algorithm: x = 2^k * (1+f)
// with 1+f in [sqrt(2)/2, sqrt(2)), log(1+f) = f - s*(f - R) by a minimax
// polynomial in s = f/(2+f). glibc's log is correctly rounded and differs
// from it in the last bit for some inputs; this reproduces Prometheus's
// ln, log2 and log10 exactly.
double go_log(double x) {
  if (std::isnan(x) || (std::isinf(x) && x > 0)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return -kInf;
  static const double kLn2Hi = from_bits(0x3fe62e42fee00000);
  static const double kLn2Lo = from_bits(0x3dea39ef35793c76);
  static const double kL1 = from_bits(0x3fe5555555555593);
  static const double kL2 = from_bits(0x3fd999999997fa04);
  static const double kL3 = from_bits(0x3fd2492494229359);
  static const double kL4 = from_bits(0x3fcc71c51d8e78af);
  static const double kL5 = from_bits(0x3fc7466496cb03de);
  static const double kL6 = from_bits(0x3fc39a09d078c69f);
  static const double kL7 = from_bits(0x3fc2f112df3e5244);
  int ki = 0;
  double f1 = std::frexp(x, &ki);
  if (f1 < 0.70710678118654752440) {  // sqrt(2)/2
    f1 *= 2;
    ki--;
  }
  const double f = f1 - 1;
  const double k = ki;
  const double s = f / (2 + f);
  const double s2 = s * s;
  const double s4 = s2 * s2;
  const double t1 = s2 * (kL1 + s4 * (kL3 + s4 * (kL5 + s4 * kL7)));
  const double t2 = s4 * (kL2 + s4 * (kL4 + s4 * kL6));
  const double r = t1 + t2;
  const double hfsq = 0.5 * f * f;
  return k * kLn2Hi - ((hfsq - (s * (hfsq + r) + k * kLn2Lo)) - f);
}

// Go's math.Log2: exact for powers of two, else log(frac)/ln2 + exp.
double go_log2(double x) {
  int exp = 0;
  const double frac = std::frexp(x, &exp);
  if (frac == 0.5) return static_cast<double>(exp - 1);
  return go_log(frac) * kInvLn2 + static_cast<double>(exp);
}

double go_log10(double x) {
  return go_log(x) * kInvLn10;
}

// Go's math.Max / math.Min (a +Inf beats NaN in Max, -Inf in Min; -0 < +0).
double go_max(double x, double y) {
  if (std::isinf(x) && x > 0) return x;
  if (std::isinf(y) && y > 0) return y;
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0 && x == y) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}

double go_min(double x, double y) {
  if (std::isinf(x) && x < 0) return x;
  if (std::isinf(y) && y < 0) return y;
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == 0 && x == y) return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

// ---- Go's time package (1.19) calendar arithmetic, on uint64 seconds since
// its "absolute" epoch; all arithmetic wraps as Go's does.
constexpr int64_t kSecondsPerMinute = 60;
constexpr int64_t kSecondsPerHour = 60 * kSecondsPerMinute;
constexpr int64_t kSecondsPerDay = 24 * kSecondsPerHour;
constexpr int64_t kSecondsPerWeek = 7 * kSecondsPerDay;
constexpr uint64_t kDaysPer400Years = 365 * 400 + 97;
constexpr uint64_t kDaysPer100Years = 365 * 100 + 24;
constexpr uint64_t kDaysPer4Years = 365 * 4 + 1;
constexpr int64_t kAbsoluteZeroYear = -292277022399;
// (kAbsoluteZeroYear - 1) * 365.2425 * kSecondsPerDay: 292277022400 years,
// a whole number of 400-year cycles, back from January 1 of year 1.
constexpr int64_t kAbsoluteToInternal =
    (kAbsoluteZeroYear - 1) / 400 * static_cast<int64_t>(kDaysPer400Years) * kSecondsPerDay;
static_assert(kAbsoluteToInternal == -9223371966579724800);
constexpr int64_t kUnixToInternal = (1969 * 365 + 1969 / 4 - 1969 / 100 + 1969 / 400) * kSecondsPerDay;
constexpr int64_t kUnixToAbsolute = kUnixToInternal - kAbsoluteToInternal;
constexpr int kDaysBefore[13] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};

bool go_is_leap(int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

// Go's int64(f) on amd64 (CVTTSD2SQ): truncation; NaN and anything outside
// [-2^63, 2^63) become the minimum int64.
int64_t go_float_to_int64(double f) {
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

uint64_t unix_to_abs(int64_t unix_sec) {
  return static_cast<uint64_t>(unix_sec) + static_cast<uint64_t>(kUnixToAbsolute);
}

struct GoDate {
  int64_t year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31
  int yday = 0;   // 0-based day of the year
};

// Go's absDate.
GoDate abs_date(uint64_t abs) {
  uint64_t d = abs / kSecondsPerDay;
  uint64_t n = d / kDaysPer400Years;  // 400-year cycles
  uint64_t y = 400 * n;
  d -= kDaysPer400Years * n;
  n = d / kDaysPer100Years;  // 100-year cycles
  n -= n >> 2;
  y += 100 * n;
  d -= kDaysPer100Years * n;
  n = d / kDaysPer4Years;  // 4-year cycles
  y += 4 * n;
  d -= kDaysPer4Years * n;
  n = d / 365;  // years within a 4-year cycle
  n -= n >> 2;
  y += n;
  d -= 365 * n;

  GoDate out;
  out.year = static_cast<int64_t>(y) + kAbsoluteZeroYear;
  out.yday = static_cast<int>(d);
  int day = out.yday;
  if (go_is_leap(out.year)) {
    if (day > 31 + 29 - 1) {
      day--;  // After the leap day: pretend it was not there.
    } else if (day == 31 + 29 - 1) {
      out.month = 2;
      out.day = 29;
      return out;
    }
  }
  int month = day / 31;  // Estimate; may be one month too low.
  const int end = kDaysBefore[month + 1];
  int begin;
  if (day >= end) {
    month++;
    begin = end;
  } else {
    begin = kDaysBefore[month];
  }
  out.month = month + 1;
  out.day = day - begin + 1;
  return out;
}

// Go's daysSinceEpoch: days from the absolute epoch to January 1 of `year`.
uint64_t days_since_epoch(int64_t year) {
  uint64_t y = static_cast<uint64_t>(year) - static_cast<uint64_t>(kAbsoluteZeroYear);
  uint64_t n = y / 400;
  y -= 400 * n;
  uint64_t d = kDaysPer400Years * n;
  n = y / 100;
  y -= 100 * n;
  d += kDaysPer100Years * n;
  n = y / 4;
  y -= 4 * n;
  d += kDaysPer4Years * n;
  d += 365 * y;
  return d;
}

// Prometheus: 32 - time.Date(year, month, 32, 0, 0, 0, 0, UTC).Day().
int days_in_month_of(const GoDate& t) {
  uint64_t d = days_since_epoch(t.year);
  d += static_cast<uint64_t>(kDaysBefore[t.month - 1]);
  if (go_is_leap(t.year) && t.month >= 3) d++;
  d += 32 - 1;
  return 32 - abs_date(d * kSecondsPerDay).day;
}

}  // namespace

namespace math {

double abs(double v) {
  return std::fabs(v);
}
double ceil(double v) {
  return std::ceil(v);
}
double floor(double v) {
  return std::floor(v);
}
double exp(double v) {
  return std::exp(v);
}
double ln(double v) {
  return go_log(v);
}
double log2(double v) {
  return go_log2(v);
}
double log10(double v) {
  return go_log10(v);
}
double sqrt(double v) {
  return std::sqrt(v);
}
double sgn(double v) {
  if (v < 0) return -1.0;
  if (v > 0) return 1.0;
  return v;
}
double sin(double v) {
  return std::sin(v);
}
double cos(double v) {
  return std::cos(v);
}
double tan(double v) {
  return std::tan(v);
}
double asin(double v) {
  return std::asin(v);
}
double acos(double v) {
  return std::acos(v);
}
double atan(double v) {
  return std::atan(v);
}
double sinh(double v) {
  return std::sinh(v);
}
double cosh(double v) {
  return std::cosh(v);
}
double tanh(double v) {
  return std::tanh(v);
}
double asinh(double v) {
  return std::asinh(v);
}
double acosh(double v) {
  return std::acosh(v);
}
double atanh(double v) {
  return std::atanh(v);
}
double deg(double v) {
  return v * 180 / kPi;
}
double rad(double v) {
  return v * kPi / 180;
}

}  // namespace math

double round_to(double v, double to_nearest) {
  // Prometheus inverts first: fewer floating point surprises than v / to_nearest.
  const double inv = 1.0 / to_nearest;
  return std::floor(v * inv + 0.5) / inv;
}

double clamp(double v, double min, double max) {
  return go_max(min, go_min(max, v));
}

namespace calendar {

namespace {

uint64_t abs_seconds(double unix_seconds) {
  return unix_to_abs(go_float_to_int64(unix_seconds));
}

}  // namespace

double day_of_month(double unix_seconds) {
  return static_cast<double>(abs_date(abs_seconds(unix_seconds)).day);
}
double day_of_week(double unix_seconds) {
  // January 1 of the absolute year was a Monday (1).
  return static_cast<double>(((abs_seconds(unix_seconds) + kSecondsPerDay) % kSecondsPerWeek) / kSecondsPerDay);
}
double day_of_year(double unix_seconds) {
  return static_cast<double>(abs_date(abs_seconds(unix_seconds)).yday + 1);
}
double days_in_month(double unix_seconds) {
  return static_cast<double>(days_in_month_of(abs_date(abs_seconds(unix_seconds))));
}
double hour(double unix_seconds) {
  return static_cast<double>((abs_seconds(unix_seconds) % kSecondsPerDay) / kSecondsPerHour);
}
double minute(double unix_seconds) {
  return static_cast<double>((abs_seconds(unix_seconds) % kSecondsPerHour) / kSecondsPerMinute);
}
double month(double unix_seconds) {
  return static_cast<double>(abs_date(abs_seconds(unix_seconds)).month);
}
double year(double unix_seconds) {
  return static_cast<double>(abs_date(abs_seconds(unix_seconds)).year);
}

}  // namespace calendar

}  // namespace llmon::promql
