// Prometheus durations: parse_duration_ms / format_duration_ms against
// prometheus/common model.ParseDuration and Duration.String.
#include <gtest/gtest.h>

#include <random>

#include "promql/parser.h"

namespace llmon::promql {
namespace {

constexpr int64_t kSecond = 1000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;

TEST(PromqlDuration, Parses) {
  struct Case {
    const char* s;
    int64_t ms;
  } cases[] = {
      {"0", 0},
      {"0s", 0},
      {"5m", 5 * kMinute},
      {"1h30m", 90 * kMinute},
      {"2d", 2 * kDay},
      {"1w", 7 * kDay},
      {"1y", 365 * kDay},
      {"500ms", 500},
      {"1s500ms", 1500},
      {"1y2w3d4h5m6s7ms", 365 * kDay + 14 * kDay + 3 * kDay + 4 * kHour + 5 * kMinute + 6 * kSecond + 7},
      {"90m", 90 * kMinute},
      {"0005m", 5 * kMinute},
      {"292y", 292 * 365 * kDay},
  };
  for (const auto& c : cases) {
    auto d = parse_duration_ms(c.s);
    ASSERT_TRUE(d) << c.s << ": " << d.error();
    EXPECT_EQ(*d, c.ms) << c.s;
  }
}

TEST(PromqlDuration, RejectsWhatPrometheusRejects) {
  struct Case {
    const char* s;
    const char* error;
  } cases[] = {
      {"", "empty duration string"},
      {"5", "not a valid duration string: \"5\""},
      {"1.5h", "not a valid duration string: \"1.5h\""},
      {"5m1h", "not a valid duration string: \"5m1h\""},
      {"1m1m", "not a valid duration string: \"1m1m\""},
      {"1ms1s", "not a valid duration string: \"1ms1s\""},
      {"5x", "not a valid duration string: \"5x\""},
      {"-5m", "not a valid duration string: \"-5m\""},
      {"1hs", "not a valid duration string: \"1hs\""},
      {"h", "not a valid duration string: \"h\""},
      {" 5m", "not a valid duration string: \" 5m\""},
      {"300y", "duration out of range"},
      {"106752d", "duration out of range"},
      {"99999999999999999999999s", "duration out of range"},
  };
  for (const auto& c : cases) {
    auto d = parse_duration_ms(c.s);
    ASSERT_FALSE(d) << c.s;
    EXPECT_EQ(d.error(), c.error) << c.s;
  }
}

TEST(PromqlDuration, FormatsShortestForm) {
  struct Case {
    int64_t ms;
    const char* s;
  } cases[] = {
      {0, "0s"},
      {1, "1ms"},
      {kSecond, "1s"},
      {90 * kSecond, "1m30s"},
      {90 * kMinute, "1h30m"},
      {kDay, "1d"},
      {7 * kDay, "1w"},
      {14 * kDay, "2w"},
      {8 * kDay, "8d"},  // weeks and years only when exact
      {365 * kDay, "1y"},
      {730 * kDay, "2y"},
      {382 * kDay + 4 * kHour + 5 * kMinute + 6 * kSecond + 7, "382d4h5m6s7ms"},
      {365 * kDay + 1, "365d1ms"},
      {-5 * kMinute, "-5m"},
      {-1, "-1ms"},
  };
  for (const auto& c : cases) EXPECT_EQ(format_duration_ms(c.ms), c.s) << c.ms;
}

TEST(PromqlDuration, RoundTrips) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    // Up to 292 years, the time.Duration range.
    int64_t ms = static_cast<int64_t>(rng() % (292LL * 365 * kDay)) >> (rng() % 40);
    if (ms == 0) continue;
    auto back = parse_duration_ms(format_duration_ms(ms));
    ASSERT_TRUE(back) << ms << " -> " << format_duration_ms(ms) << ": " << back.error();
    EXPECT_EQ(*back, ms);
  }
}

}  // namespace
}  // namespace llmon::promql
