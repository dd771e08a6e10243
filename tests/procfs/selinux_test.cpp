#include "procfs/selinux.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(SelinuxConfig, ModesAsGoSelinuxReadsThem) {
  EXPECT_EQ(
      parse_selinux_config_mode("# This file controls the state of SELinux\nSELINUX=enforcing\nSELINUXTYPE=targeted\n"),
      kSelinuxEnforcing);
  EXPECT_EQ(parse_selinux_config_mode("SELINUXTYPE=targeted\n  SELINUX=permissive  \n"), kSelinuxPermissive);
  EXPECT_EQ(parse_selinux_config_mode("SELINUX=\"enforcing\"\n"), kSelinuxEnforcing);
  EXPECT_EQ(parse_selinux_config_mode("SELINUX=disabled\n"), kSelinuxDisabled);
  EXPECT_EQ(parse_selinux_config_mode("SELINUX=Enforcing\n"), kSelinuxDisabled);  // case-sensitive, as go-selinux
  EXPECT_EQ(parse_selinux_config_mode("# SELINUX=enforcing\n"), kSelinuxDisabled);
  EXPECT_EQ(parse_selinux_config_mode(""), kSelinuxDisabled);
  EXPECT_EQ(parse_selinux_config_mode("SELINUX=permissive\nSELINUX=enforcing\n"), kSelinuxPermissive);  // first wins
  EXPECT_EQ(parse_selinux_config_mode("\x01\xff=\nSELINUX\n"), kSelinuxDisabled);
}

TEST(SelinuxEnforce, IntegerOrDisabled) {
  EXPECT_EQ(parse_selinux_enforce("1\n"), 1);
  EXPECT_EQ(parse_selinux_enforce("0"), 0);
  EXPECT_EQ(parse_selinux_enforce(" 1 \n"), 1);
  EXPECT_EQ(parse_selinux_enforce(""), kSelinuxDisabled);
  EXPECT_EQ(parse_selinux_enforce("yes\n"), kSelinuxDisabled);
  EXPECT_EQ(parse_selinux_enforce("1x"), kSelinuxDisabled);
}

}  // namespace
}  // namespace llmon::procfs
