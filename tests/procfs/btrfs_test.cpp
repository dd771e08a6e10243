#include "procfs/btrfs.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llmon::procfs {
namespace {

TEST(BtrfsValue, DecimalOrZero) {
  EXPECT_EQ(btrfs_value("536870912\n"), 536870912u);
  EXPECT_EQ(btrfs_value(""), 0u);
  EXPECT_EQ(btrfs_value("0x10\n"), 0u);
  EXPECT_EQ(btrfs_value("-1"), 0u);
}

TEST(BtrfsAllocationRatio, ByLayout) {
  EXPECT_EQ(btrfs_allocation_ratio("single", 1), 1);
  EXPECT_EQ(btrfs_allocation_ratio("raid0", 4), 1);
  EXPECT_EQ(btrfs_allocation_ratio("dup", 1), 2);
  EXPECT_EQ(btrfs_allocation_ratio("raid1", 2), 2);
  EXPECT_EQ(btrfs_allocation_ratio("raid10", 4), 2);
  EXPECT_EQ(btrfs_allocation_ratio("raid5", 4), 4.0 / 3);
  EXPECT_EQ(btrfs_allocation_ratio("raid6", 6), 1.5);
  EXPECT_TRUE(std::isinf(btrfs_allocation_ratio("raid5", 1)));
  EXPECT_EQ(btrfs_allocation_ratio("raid1c3", 3), 0);  // procfs 0.8 does not know it
}

}  // namespace
}  // namespace llmon::procfs
