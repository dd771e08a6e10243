// Proleptic Gregorian calendar arithmetic in UTC (Howard Hinnant's
// days_from_civil / civil_from_days), exact for every date an int64 count of
// days reaches; no time zones, no leap seconds. Pure functions.
#pragma once

#include <cstdint>

namespace llmon::base {

struct CivilDate {
  int64_t year = 1970;
  unsigned month = 1;  // 1..12
  unsigned day = 1;    // 1..31
};

struct CivilTime {
  int64_t year = 1970;
  unsigned month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
};

bool is_leap_year(int64_t year);
// 28..31; month is 1..12.
unsigned days_in_month(int64_t year, unsigned month);
// Days from 1970-01-01 to year-month-day (negative before 1970).
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);
CivilDate civil_from_days(int64_t days);
// The UTC date and time of a Unix time in milliseconds; times before 1970
// round towards the past (-1 ms is 1969-12-31 23:59:59.999).
CivilTime civil_from_unix_ms(int64_t unix_ms);

}  // namespace llmon::base
