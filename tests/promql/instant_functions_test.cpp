// Element-wise functions (promql/instant_functions.h): math, round, clamp and
// the date functions (math and dates through their function table entries). Dates were derived from the proleptic
// Gregorian calendar (UTC); the NaN/Inf cases from Go's int64 conversion on amd64 and its calendar arithmetic, as
// Prometheus 2.42's promtool reports them.
#include "promql/instant_functions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string_view>

#include "promql/function_test_util.h"

namespace llmon::promql {
namespace {

using testutil::apply_simple_function;
using testutil::date_function;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

double f(std::string_view name, double v) {
  auto r = apply_simple_function(name, v);
  EXPECT_TRUE(r.has_value());
  return r.value_or(-12345);
}

TEST(InstantFunctionsSimple, Basic) {
  EXPECT_EQ(f("abs", -2.5), 2.5);
  EXPECT_EQ(f("ceil", 1.2), 2);
  EXPECT_EQ(f("ceil", -1.2), -1);
  EXPECT_EQ(f("floor", -1.2), -2);
  EXPECT_EQ(f("exp", 0), 1);
  EXPECT_EQ(f("ln", 1), 0);
  EXPECT_EQ(f("sqrt", 16), 4);
  EXPECT_TRUE(std::isnan(f("sqrt", -1)));
  EXPECT_TRUE(std::isnan(f("ln", -1)));
  EXPECT_EQ(f("ln", 0), -kInf);
  EXPECT_EQ(f("exp", 1000), kInf);
}

TEST(InstantFunctionsSimple, LogsLikeGo) {
  // Go's Log2 is exact for powers of two (frexp mantissa 0.5).
  EXPECT_EQ(f("log2", 8), 3);
  EXPECT_EQ(f("log2", 0.125), -3);
  EXPECT_EQ(f("log2", 0), -kInf);
  EXPECT_EQ(f("log2", kInf), kInf);
  EXPECT_TRUE(std::isnan(f("log2", -4)));
  EXPECT_EQ(f("log10", 100), 2);
  EXPECT_EQ(f("log10", 0), -kInf);
  EXPECT_TRUE(std::isnan(f("log10", -1)));
}

TEST(InstantFunctionsSimple, SgnDegRadTrig) {
  EXPECT_EQ(f("sgn", -3), -1);
  EXPECT_EQ(f("sgn", 0.001), 1);
  EXPECT_EQ(f("sgn", -kInf), -1);
  EXPECT_EQ(f("sgn", 0), 0);
  EXPECT_TRUE(std::signbit(f("sgn", -0.0)));  // the value itself
  EXPECT_TRUE(std::isnan(f("sgn", kNaN)));
  EXPECT_EQ(f("deg", kPi), 180);
  EXPECT_EQ(f("rad", 180), kPi);
  EXPECT_EQ(f("sin", 0), 0);
  EXPECT_EQ(f("cos", 0), 1);
  EXPECT_EQ(f("atan", kInf), kPi / 2);
  EXPECT_TRUE(std::isnan(f("asin", 2)));
  EXPECT_TRUE(std::isnan(f("acosh", 0.5)));
  EXPECT_EQ(f("atanh", 1), kInf);
  EXPECT_EQ(f("tanh", kInf), 1);
  EXPECT_EQ(f("cosh", 0), 1);
  EXPECT_EQ(f("sinh", 0), 0);
  EXPECT_EQ(f("asinh", 0), 0);
  EXPECT_EQ(f("acos", 1), 0);
  EXPECT_EQ(f("tan", 0), 0);
}

TEST(InstantFunctionsSimple, OtherIdsAreNotSimple) {
  EXPECT_FALSE(apply_simple_function("rate", 1).has_value());
  EXPECT_FALSE(apply_simple_function("round", 1).has_value());
  EXPECT_FALSE(apply_simple_function("year", 1).has_value());
  EXPECT_FALSE(apply_simple_function("clamp", 1).has_value());
}

TEST(InstantFunctionsRound, TiesUpAndToNearest) {
  EXPECT_EQ(round_to(2.5, 1), 3);
  EXPECT_EQ(round_to(-2.5, 1), -2);  // ties round up, not away from zero
  EXPECT_EQ(round_to(-2.6, 1), -3);
  EXPECT_EQ(round_to(1.234, 0.1), 1.2);  // floor(12.34 + 0.5) / 10
  EXPECT_EQ(round_to(17, 5), 15);        // inv 0.2: floor(3.4 + 0.5) / 0.2
  EXPECT_EQ(round_to(17.5, 5), 20);
  EXPECT_EQ(round_to(kInf, 1), kInf);
  EXPECT_TRUE(std::isnan(round_to(kNaN, 1)));
  EXPECT_TRUE(std::isnan(round_to(5, 0)));  // inv Inf: Inf / Inf
}

TEST(InstantFunctionsClamp, GoMinMax) {
  EXPECT_EQ(clamp(5, 0, 3), 3);
  EXPECT_EQ(clamp(-5, 0, 3), 0);
  EXPECT_EQ(clamp(2, 0, 3), 2);
  EXPECT_TRUE(std::isnan(clamp(kNaN, 0, 3)));
  EXPECT_EQ(clamp(kInf, -kInf, 3), 3);             // clamp_max
  EXPECT_EQ(clamp(-kInf, 0, kInf), 0);             // clamp_min
  EXPECT_TRUE(std::isnan(clamp(kNaN, -kInf, 3)));  // clamp_max(NaN)
  EXPECT_EQ(clamp(kNaN, kInf, kInf), kInf);        // Go: Max(+Inf, NaN) is +Inf
  EXPECT_TRUE(std::isnan(clamp(1, kNaN, 3)));
  EXPECT_TRUE(std::signbit(clamp(-0.0, -0.0, 0.0)));  // Min(0, -0) = -0, Max(-0, -0) = -0
  EXPECT_FALSE(std::signbit(clamp(-0.0, 0.0, 1.0)));  // Max(+0, -0) = +0
}

struct Date {
  double year, month, day_of_month, day_of_week, day_of_year, days_in_month, hour, minute;
};

Date date(double t) {
  auto g = [t](std::string_view name) {
    auto r = date_function(name, t);
    EXPECT_TRUE(r.has_value());
    return r.value_or(-1);
  };
  return {g("year"),        g("month"),         g("day_of_month"), g("day_of_week"),
          g("day_of_year"), g("days_in_month"), g("hour"),         g("minute")};
}

void expect_date(double t, Date want) {
  SCOPED_TRACE(t);
  Date got = date(t);
  EXPECT_EQ(got.year, want.year);
  EXPECT_EQ(got.month, want.month);
  EXPECT_EQ(got.day_of_month, want.day_of_month);
  EXPECT_EQ(got.day_of_week, want.day_of_week);
  EXPECT_EQ(got.day_of_year, want.day_of_year);
  EXPECT_EQ(got.days_in_month, want.days_in_month);
  EXPECT_EQ(got.hour, want.hour);
  EXPECT_EQ(got.minute, want.minute);
}

TEST(InstantFunctionsDate, Calendar) {
  expect_date(0, {1970, 1, 1, 4, 1, 31, 0, 0});                // Thursday
  expect_date(1709214330, {2024, 2, 29, 4, 60, 29, 13, 45});   // 2024-02-29 13:45:30, leap day
  expect_date(951782400, {2000, 2, 29, 2, 60, 29, 0, 0});      // 2000 is leap (divisible by 400)
  expect_date(4107542399, {2100, 2, 28, 0, 59, 28, 23, 59});   // 2100 is not leap
  expect_date(1704024000, {2023, 12, 31, 0, 365, 31, 12, 0});  // Sunday
  expect_date(-2208988800, {1900, 1, 1, 1, 1, 31, 0, 0});      // Monday, before the epoch
  expect_date(-1, {1969, 12, 31, 3, 365, 31, 23, 59});         // one second before the epoch
  expect_date(-0.5, {1970, 1, 1, 4, 1, 31, 0, 0});             // truncated toward zero
  expect_date(1709214330.999, {2024, 2, 29, 4, 60, 29, 13, 45});
  expect_date(1714521600, {2024, 5, 1, 3, 122, 31, 0, 0});         // 2024-05-01
  expect_date(1719792000 - 1, {2024, 6, 30, 0, 182, 30, 23, 59});  // 2024-06-30 23:59:59
}

TEST(InstantFunctionsDate, NonFiniteLikeGoOnAmd64) {
  // int64(NaN) is the minimum int64 on amd64; Go's calendar then wraps.
  // Values as promtool 2.42 prints them for year(vector(NaN)) etc.
  expect_date(kNaN, {292277026596, 12, 4, 0, 339, 31, 15, 30});
  expect_date(1e300, {292277026596, 12, 4, 0, 339, 31, 15, 30});
  expect_date(kInf, {292277026596, 12, 4, 0, 339, 31, 15, 30});
  EXPECT_EQ(date(-1e18).year, -31688736537);
  EXPECT_EQ(date(9.2e18).year, 291536396232);
}

TEST(InstantFunctionsDate, OtherIdsAreNotDates) {
  EXPECT_FALSE(date_function("abs", 0).has_value());
  EXPECT_FALSE(date_function("time", 0).has_value());
}

}  // namespace
}  // namespace llmon::promql
