#include "collector/device_filter.h"

#include <gtest/gtest.h>

namespace llmon::collector {
namespace {

TEST(DeviceFilter, ExcludeIncludeAndUnset) {
  DeviceFilter none("", "");
  EXPECT_FALSE(none.ignored("eth0"));
  DeviceFilter ex("^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\\d+n\\d+p)\\d+$", "");
  EXPECT_TRUE(ex.ignored("sda1"));
  EXPECT_TRUE(ex.ignored("nvme0n1p1"));
  EXPECT_TRUE(ex.ignored("loop0"));
  EXPECT_FALSE(ex.ignored("sda"));
  EXPECT_FALSE(ex.ignored("nvme0n1"));
  EXPECT_TRUE(ex.ignored("ram0"));
  EXPECT_FALSE(ex.ignored("zram0"));
  EXPECT_TRUE(ex.ignored("sda1"));  // cached answer is the same
  DeviceFilter in("", "eth");  // searches anywhere, like Go's MatchString
  EXPECT_FALSE(in.ignored("veth12"));
  EXPECT_TRUE(in.ignored("lo"));
  DeviceFilter both("^eth1$", "^eth");
  EXPECT_FALSE(both.ignored("eth0"));
  EXPECT_TRUE(both.ignored("eth1"));
  EXPECT_TRUE(both.ignored("wlan0"));
}

TEST(DeviceFilter, InvalidPatternIsReported) {
  DeviceFilter bad("(", "");
  EXPECT_FALSE(bad.status());
  EXPECT_FALSE(bad.ignored("x"));
}

TEST(DeviceFilter, ManyNamesStayCorrect) {
  DeviceFilter ex("^veth", "");
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(ex.ignored("veth" + std::to_string(i)));
    ASSERT_FALSE(ex.ignored("eth" + std::to_string(i)));
  }
}

}  // namespace
}  // namespace llmon::collector
