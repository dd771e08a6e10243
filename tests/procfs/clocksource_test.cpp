#include "procfs/clocksource.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Clocksource, SplitsAvailableAndTrimsCurrent) {
  Clocksource cs;
  parse_clocksource("tsc hpet acpi_pm \n", "tsc\n", cs);
  ASSERT_EQ(cs.available.size(), 3u);
  EXPECT_EQ(cs.available[0], "tsc");
  EXPECT_EQ(cs.available[1], "hpet");
  EXPECT_EQ(cs.available[2], "acpi_pm");
  EXPECT_EQ(cs.current, "tsc");
}

TEST(Clocksource, EmptyAndTruncated) {
  Clocksource cs;
  cs.available = {"stale"};
  parse_clocksource("", "", cs);
  EXPECT_TRUE(cs.available.empty());  // storage reused, old entries dropped
  EXPECT_EQ(cs.current, "");
  parse_clocksource("kvm-clock", "kvm-cl", cs);  // no trailing newline
  ASSERT_EQ(cs.available.size(), 1u);
  EXPECT_EQ(cs.available[0], "kvm-clock");
  EXPECT_EQ(cs.current, "kvm-cl");
}

}  // namespace
}  // namespace llmon::procfs
