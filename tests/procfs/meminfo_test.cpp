#include "procfs/meminfo.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(MeminfoParser, ParsesUnitsAndCounts) {
  auto m = parse_meminfo(
      "MemTotal:       65842216 kB\n"
      "Active(anon):    7021736 kB\n"
      "HugePages_Total:     512\n"
      "Hugepagesize:       2048 kB\n");
  ASSERT_TRUE(m) << m.error();
  ASSERT_EQ(m->size(), 4u);
  EXPECT_EQ((*m)[0].raw_key, "MemTotal");
  EXPECT_TRUE((*m)[0].has_unit);
  EXPECT_EQ((*m)[0].value, 65842216.0 * 1024);
  EXPECT_EQ((*m)[1].raw_key, "Active(anon)");
  EXPECT_EQ((*m)[2].raw_key, "HugePages_Total");
  EXPECT_FALSE((*m)[2].has_unit);
  EXPECT_EQ((*m)[2].value, 512);
  EXPECT_EQ((*m)[3].value, 2048.0 * 1024);
}

TEST(MeminfoParser, KeysFollowNodeExporter) {
  EXPECT_EQ(meminfo_key("MemTotal", true), "MemTotal_bytes");
  EXPECT_EQ(meminfo_key("Active(anon)", true), "Active_anon_bytes");
  EXPECT_EQ(meminfo_key("Inactive(file)", true), "Inactive_file_bytes");
  EXPECT_EQ(meminfo_key("HugePages_Total", false), "HugePages_Total");
  // Greedy like the Go regexp \((.*)\): first '(' to last ')'.
  EXPECT_EQ(meminfo_key("Foo(bar)(baz)", true), "Foo_bar)(baz_bytes");
  EXPECT_EQ(meminfo_key("Odd(x", false), "Odd(x");
}

TEST(MeminfoParser, LastCharacterOfTheNameIsDropped) {
  // node_exporter strips one character whether or not it is a colon.
  auto m = parse_meminfo("NoColon 5\n");
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ((*m)[0].raw_key, "NoColo");
}

TEST(MeminfoParser, SkipsBlankLines) {
  auto m = parse_meminfo("\nMemFree: 1 kB\n\n");
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m->size(), 1u);
}

TEST(MeminfoParser, EmptyInputIsEmpty) {
  auto m = parse_meminfo("");
  ASSERT_TRUE(m) << m.error();
  EXPECT_TRUE(m->empty());
}

TEST(MeminfoParser, MalformedLinesAreErrors) {
  auto no_value = parse_meminfo("MemTotal: 1 kB\nLonely:\n");
  ASSERT_FALSE(no_value);
  EXPECT_NE(no_value.error().find("/proc/meminfo:2:"), std::string::npos) << no_value.error();
  auto bad_value = parse_meminfo("Foo: 1x2 kB\n");
  ASSERT_FALSE(bad_value);
  EXPECT_NE(bad_value.error().find("1x2"), std::string::npos) << bad_value.error();
  EXPECT_FALSE(parse_meminfo("Foo: 12 kB extra\n"));
}

TEST(MeminfoParser, TruncatedLastLineKeepsItsValue) {
  auto m = parse_meminfo("MemTotal: 65842216 kB\nMemFree: 2136");
  ASSERT_TRUE(m) << m.error();
  ASSERT_EQ(m->size(), 2u);
  EXPECT_FALSE((*m)[1].has_unit);
  EXPECT_EQ((*m)[1].value, 2136);
}

}  // namespace
}  // namespace llmon::procfs
