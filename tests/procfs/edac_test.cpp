#include "procfs/edac.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Edac, EntryNumbersAsTheGlobAndRegexp) {
  EXPECT_EQ(edac_entry_number("mc0", "mc"), "0");
  EXPECT_EQ(edac_entry_number("mc12", "mc"), "12");
  EXPECT_EQ(edac_entry_number("csrow3", "csrow"), "3");
  EXPECT_EQ(edac_entry_number("csrow3x", "csrow"), "3");  // mc[0-9]* matches, the number is the digits
  EXPECT_FALSE(edac_entry_number("mc", "mc"));
  EXPECT_FALSE(edac_entry_number("mcx", "mc"));
  EXPECT_FALSE(edac_entry_number("power", "mc"));
  EXPECT_FALSE(edac_entry_number("dimm0", "csrow"));
}

TEST(Edac, Counts) {
  EXPECT_EQ(*parse_edac_count("3\n", "ce_count"), 3u);
  auto bad = parse_edac_count("-1\n", "mc0/ce_count");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("mc0/ce_count"), std::string::npos);
}

}  // namespace
}  // namespace llmon::procfs
