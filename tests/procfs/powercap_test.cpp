#include "procfs/powercap.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(RaplZoneNamer, SuffixIsTheIndexOtherwiseTheCount) {
  RaplZoneNamer n;
  auto a = n.next("package-0\n");
  EXPECT_EQ(a.name, "package");
  EXPECT_EQ(a.index, 0);
  auto b = n.next("dram\n");
  EXPECT_EQ(b.name, "dram");
  EXPECT_EQ(b.index, 0);
  auto c = n.next("package-1\n");
  EXPECT_EQ(c.name, "package");
  EXPECT_EQ(c.index, 1);
  auto d = n.next("dram\n");
  EXPECT_EQ(d.index, 1);
  auto e = n.next("package\n");  // no suffix: the count of "package" so far (last index + 1)
  EXPECT_EQ(e.name, "package");
  EXPECT_EQ(e.index, 2);
  auto f = n.next("a-b-1");  // more than one '-': the whole name
  EXPECT_EQ(f.name, "a-b-1");
  EXPECT_EQ(f.index, 0);
  auto g = n.next("psys-x");  // suffix not a number
  EXPECT_EQ(g.name, "psys-x");
  EXPECT_EQ(g.index, 0);
}

TEST(PowercapUint, DecimalOnly) {
  EXPECT_EQ(*parse_powercap_uint("48213907142\n", "energy_uj"), 48213907142u);
  for (auto bad : {"", "-1", "0x10", "1.5", "abc", "18446744073709551616"}) {
    auto v = parse_powercap_uint(bad, "intel-rapl:0/energy_uj");
    ASSERT_FALSE(v) << bad;
    EXPECT_NE(v.error().find("intel-rapl:0/energy_uj"), std::string::npos) << v.error();
  }
}

TEST(SanitizeMetricName, AsNodeExporter) {
  EXPECT_EQ(sanitize_metric_name("package_joules_total"), "package_joules_total");
  EXPECT_EQ(sanitize_metric_name("a-b_joules_total"), "a_b_joules_total");
  EXPECT_EQ(sanitize_metric_name("a_-_b"), "a_b");  // the underscores around a bad run go too
  EXPECT_EQ(sanitize_metric_name("a__b"), "a__b");
  EXPECT_EQ(sanitize_metric_name("x .:y"), "x_y");
  EXPECT_EQ(sanitize_metric_name("-x-"), "_x_");
}

}  // namespace
}  // namespace llmon::procfs
