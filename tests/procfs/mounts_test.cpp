#include "procfs/mounts.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Mounts, ParsesFstabFormat) {
  auto r = parse_mounts(
      "/dev/mapper/vg0-root / ext4 rw,relatime,errors=remount-ro 0 0\n"
      "/dev/sda1 /boot ext4 ro,relatime 0 0\n"
      "/dev/sdb1 /srv/with\\040space\\011tab ext4 rw 0 0\n"
      "my\\040dev /x\\134y vfat rw\n");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].device, "/dev/mapper/vg0-root");
  EXPECT_EQ((*r)[0].mount_point, "/");
  EXPECT_EQ((*r)[0].fs_type, "ext4");
  EXPECT_FALSE((*r)[0].read_only());  // "errors=remount-ro" is not "ro"
  EXPECT_TRUE((*r)[1].read_only());
  EXPECT_EQ((*r)[2].mount_point, "/srv/with space\ttab");
  // Like node_exporter: the device keeps its escapes, and only \040 and \011 are decoded.
  EXPECT_EQ((*r)[3].device, "my\\040dev");
  EXPECT_EQ((*r)[3].mount_point, "/x\\134y");
}

TEST(Mounts, EmptyAndBlankLines) {
  auto r = parse_mounts("");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
  r = parse_mounts("\n\nproc /proc proc rw 0 0\n\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 1u);
}

TEST(Mounts, TruncatedLineIsAnErrorNamingTheLine) {
  auto r = parse_mounts("proc /proc proc rw 0 0\n/dev/sda1 /boot ext4\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("mounts:2"), std::string::npos) << r.error();
}

TEST(Mounts, BinaryGarbageDoesNotCrash) {
  std::string text;
  for (int i = 0; i < 1024; ++i) text += static_cast<char>((i * 57 + 3) % 256);
  auto r = parse_mounts(text);
  if (r) {
    for (const auto& m : *r) EXPECT_FALSE(m.fs_type.empty());
  }
  std::string nul("a\0 b c d\n", 9);
  EXPECT_TRUE(parse_mounts(nul));
}

}  // namespace
}  // namespace llmon::procfs
