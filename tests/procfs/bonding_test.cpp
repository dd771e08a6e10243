#include "procfs/bonding.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Bonding, NamesAreWhitespaceSeparated) {
  EXPECT_EQ(parse_bonding_names("bond0\n"), std::vector<std::string>{"bond0"});
  EXPECT_EQ(parse_bonding_names("eth1 ens3\n"), (std::vector<std::string>{"eth1", "ens3"}));
  EXPECT_EQ(parse_bonding_names(" a\tb\n\nc "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(parse_bonding_names("\n").empty());
}

TEST(Bonding, OnlyUpIsActive) {
  EXPECT_TRUE(bonding_slave_up("up\n"));
  EXPECT_FALSE(bonding_slave_up("down\n"));
  EXPECT_FALSE(bonding_slave_up("going back\n"));
  EXPECT_FALSE(bonding_slave_up("UP"));
}

}  // namespace
}  // namespace llmon::procfs
