#include <gtest/gtest.h>

#include "base/clock.h"
#include "collector/time_zone.h"
#include "support/test_paths.h"

namespace llmon::collector {
namespace {

Status collect_time(Collector& c, model::Snapshot& snap, int64_t ts = 1000) {
  model::SnapshotBuilder b(snap, ts);
  Status s = c.collect(b);
  b.finish();
  return s;
}

TEST(TimeCollector, ClockZoneAndClocksources) {
  base::ManualClock clock(1'700'000'123'456);
  CollectorContext ctx;
  ctx.clock = &clock;
  ctx.fs.sys_root = testing::fixture("sys");
  int64_t asked_s = 0;
  auto c = make_time_with(ctx, [&](int64_t unix_s) {
    asked_s = unix_s;
    return TimeZoneInfo{"CEST", 7200};
  });
  model::Snapshot s;
  Status st = collect_time(*c, s);
  ASSERT_TRUE(st) << st.message();
  ASSERT_NE(s.find_series("node_time_seconds", {}), nullptr);
  EXPECT_DOUBLE_EQ(s.find_series("node_time_seconds", {})->value, 1'700'000'123.456);
  EXPECT_EQ(asked_s, 1'700'000'123);
  const auto* z = s.find_series("node_time_zone_offset_seconds", {{"time_zone", "CEST"}});
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->value, 7200);

  const model::Family* avail = s.find("node_time_clocksource_available_info");
  ASSERT_NE(avail, nullptr);
  EXPECT_EQ(avail->label_names, (std::vector<std::string>{"clocksource", "device"}));
  ASSERT_EQ(avail->series.size(), 3u);
  for (auto name : {"tsc", "hpet", "acpi_pm"})
    EXPECT_NE(s.find_series("node_time_clocksource_available_info", {{"clocksource", name}, {"device", "0"}}), nullptr)
        << name;
  EXPECT_NE(s.find_series("node_time_clocksource_current_info", {{"clocksource", "tsc"}, {"device", "0"}}), nullptr);

  clock.advance_ms(1500);
  ASSERT_TRUE(collect_time(*c, s, 2000));
  EXPECT_DOUBLE_EQ(s.find_series("node_time_seconds", {})->value, 1'700'000'124.956);
}

TEST(TimeCollector, NoClocksourceDirectory) {
  base::ManualClock clock(5000);
  CollectorContext ctx;
  ctx.clock = &clock;
  ctx.fs.sys_root = "/nonexistent-llmon-sys";
  auto c = make_time_with(ctx, [](int64_t) { return TimeZoneInfo{"UTC", 0}; });
  model::Snapshot s;
  ASSERT_TRUE(collect_time(*c, s));
  EXPECT_DOUBLE_EQ(s.find_series("node_time_seconds", {})->value, 5);
  EXPECT_EQ(s.find_series("node_time_clocksource_current_info", {}), nullptr);
}

TEST(TimeCollector, LocalZoneFollowsTz) {
  // local_time_zone reads the process's zone; under TZ=UTC (or unset, with
  // no /etc/localtime) it must be UTC+0, and the offset always matches tm_gmtoff.
  std::time_t t = 1'700'000'000;
  std::tm tm{};
  ASSERT_NE(::localtime_r(&t, &tm), nullptr);
  TimeZoneInfo z = local_time_zone(1'700'000'000);
  EXPECT_EQ(z.offset_s, tm.tm_gmtoff);
  EXPECT_EQ(z.name, tm.tm_zone);
}

}  // namespace
}  // namespace llmon::collector
