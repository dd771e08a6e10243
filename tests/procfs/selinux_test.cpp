#include "procfs/selinux.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(SelinuxConfig, SelinuxLine) {
  EXPECT_EQ(selinux_config_mode("# This file controls the state of SELinux\nSELINUX=enforcing\nSELINUXTYPE=targeted\n"),
            1);
  EXPECT_EQ(selinux_config_mode("SELINUXTYPE=targeted\n  SELINUX=\"permissive\"\n"), 0);
  EXPECT_EQ(selinux_config_mode("SELINUX=disabled\n"), -1);
  EXPECT_EQ(selinux_config_mode("#SELINUX=enforcing\n"), -1);
  EXPECT_EQ(selinux_config_mode(""), -1);
}

TEST(SelinuxEnforce, IntegerOrMinusOne) {
  EXPECT_EQ(selinux_enforce_mode("1"), 1);
  EXPECT_EQ(selinux_enforce_mode("0\n"), 0);
  EXPECT_EQ(selinux_enforce_mode("x"), -1);
  EXPECT_EQ(selinux_enforce_mode(""), -1);
}

TEST(SelinuxContext, KernelMeansDisabled) {
  EXPECT_TRUE(selinux_context_is_kernel(std::string_view("kernel\0", 7)));
  EXPECT_FALSE(selinux_context_is_kernel(std::string_view("system_u:system_r:unconfined_service_t:s0\0", 42)));
}

}  // namespace
}  // namespace llmon::procfs
