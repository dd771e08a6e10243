#include "procfs/thermal.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(SysfsInt, ParsesSignedTrimmed) {
  EXPECT_EQ(*parse_sysfs_int("27800\n", "temp"), 27800);
  EXPECT_EQ(*parse_sysfs_int(" -1 \n", "cur_state"), -1);
  EXPECT_EQ(*parse_sysfs_int("+5", "x"), 5);
}

TEST(SysfsInt, RejectsGarbage) {
  for (auto bad : {"", "\n", "abc", "12a", "1.5", "+-1", "99999999999999999999"}) {
    auto v = parse_sysfs_int(bad, "temp");
    ASSERT_FALSE(v) << bad;
    EXPECT_NE(v.error().find("temp"), std::string::npos);  // names the file
  }
}

TEST(ThermalTemp, MillidegreesToCelsius) {
  auto t = parse_thermal_temp_celsius("27800\n", "temp");
  ASSERT_TRUE(t) << t.error();
  EXPECT_DOUBLE_EQ(*t, 27.8);
  EXPECT_DOUBLE_EQ(*parse_thermal_temp_celsius("-5000", "temp"), -5);
}

TEST(ThermalTemp, EmptyOrFractionalIsAnError) {
  auto t = parse_thermal_temp_celsius("", "/sys/class/thermal/thermal_zone0/temp");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().find("thermal_zone0/temp"), std::string::npos);
  EXPECT_FALSE(parse_thermal_temp_celsius("27.8\n", "temp"));
}

TEST(SysfsTrimmed, TrimsWhitespaceOnly) {
  EXPECT_EQ(sysfs_trimmed(" TCC Offset\n"), "TCC Offset");
  EXPECT_EQ(sysfs_trimmed("\n\n"), "");
  EXPECT_EQ(sysfs_trimmed(""), "");
}

}  // namespace
}  // namespace llmon::procfs
