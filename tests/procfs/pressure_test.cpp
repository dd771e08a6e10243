#include "procfs/pressure.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(PressureParser, ParsesSomeAndFull) {
  auto p = parse_pressure(
      "some avg10=1.53 avg60=0.87 avg300=0.63 total=181720317\n"
      "full avg10=0.09 avg60=0.20 avg300=0.17 total=28876012\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_TRUE(p->has_some);
  EXPECT_TRUE(p->has_full);
  EXPECT_DOUBLE_EQ(p->some.avg10, 1.53);
  EXPECT_DOUBLE_EQ(p->some.avg300, 0.63);
  EXPECT_EQ(p->some.total_us, 181720317u);
  EXPECT_DOUBLE_EQ(p->full.avg60, 0.20);
  EXPECT_EQ(p->full.total_us, 28876012u);
}

TEST(PressureParser, OldCpuFileHasOnlySome) {
  auto p = parse_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_TRUE(p->has_some);
  EXPECT_FALSE(p->has_full);
}

TEST(PressureParser, IgnoresUnknownLinesAndEmptyInput) {
  auto p = parse_pressure("weird avg10=x\n\n");
  ASSERT_TRUE(p) << p.error();
  EXPECT_FALSE(p->has_some);
  auto e = parse_pressure("");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->has_some || e->has_full);
}

TEST(PressureParser, MalformedLinesAreErrors) {
  auto missing = parse_pressure("some avg10=0.00 avg60=0.00 total=12\n", "/proc/pressure/memory");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("/proc/pressure/memory:1:"), std::string::npos) << missing.error();
  EXPECT_FALSE(parse_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=-1\n"));
  EXPECT_FALSE(parse_pressure("full avg10=a avg60=0.00 avg300=0.00 total=1\n"));
  EXPECT_FALSE(parse_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=\n"));
}

TEST(PressureParser, TruncatedLineIsAnError) {
  EXPECT_FALSE(parse_pressure("some avg10=1.53 avg60=0.87 avg300=0.63 total=181720317\nfull avg10=0.0"));
}

}  // namespace
}  // namespace llmon::procfs
