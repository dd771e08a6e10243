#include "procfs/kernel_random.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(KernelRandomParser, ReadsTheTrimmedNumber) {
  auto v = parse_kernel_random_value("256\n", "/proc/sys/kernel/random/entropy_avail");
  ASSERT_TRUE(v) << v.error();
  EXPECT_EQ(*v, 256u);
  auto big = parse_kernel_random_value("  4096 \n", "poolsize");
  ASSERT_TRUE(big) << big.error();
  EXPECT_EQ(*big, 4096u);
}

TEST(KernelRandomParser, MalformedTextNamesTheFile) {
  auto e = parse_kernel_random_value("lots\n", "/proc/sys/kernel/random/entropy_avail");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "/proc/sys/kernel/random/entropy_avail:1: expected an unsigned integer, got \"lots\"");
  EXPECT_FALSE(parse_kernel_random_value("", "f"));
  EXPECT_FALSE(parse_kernel_random_value("-1\n", "f"));
  EXPECT_FALSE(parse_kernel_random_value("18446744073709551616\n", "f"));  // overflows uint64
}

}  // namespace
}  // namespace llmon::procfs
