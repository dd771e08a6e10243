#include "procfs/mountinfo.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(Mountinfo, ParsesLines) {
  auto r = parse_mountinfo(
      "28 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/vg0-root rw,errors=remount-ro\n"
      "65 28 8:17 / /srv/with\\040space rw,relatime shared:37 master:2 - ext4 /dev/sdb1 rw\n"
      "530 28 0:58 / /var/lib/docker/overlay2/9b1c6f/merged rw,relatime - overlay overlay rw,lowerdir=/l/A:/l/B\n"
      "94 28 0:47 / /scratch rw,relatime shared:56 - nfs filer01:/vol/scratch "
      "rw,vers=3,proto=tcp,mountaddr=10.20.0.15,addr=10.20.0.15\n",
      "mountinfo");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 4u);
  const MountInfo& root = (*r)[0];
  EXPECT_EQ(root.mount_id, 28);
  EXPECT_EQ(root.parent_id, 1);
  EXPECT_EQ(root.major_minor, "253:0");
  EXPECT_EQ(root.root, "/");
  EXPECT_EQ(root.mount_point, "/");
  EXPECT_EQ(root.options, "rw,relatime");
  EXPECT_EQ(root.optional_fields, std::vector<std::string>{"shared:1"});
  EXPECT_EQ(root.fs_type, "ext4");
  EXPECT_EQ(root.source, "/dev/mapper/vg0-root");
  EXPECT_EQ(root.super_options, "rw,errors=remount-ro");
  EXPECT_EQ((*r)[1].mount_point, "/srv/with\\040space");  // kept as the kernel escapes it
  EXPECT_EQ((*r)[1].optional_fields, (std::vector<std::string>{"shared:37", "master:2"}));
  EXPECT_TRUE((*r)[2].optional_fields.empty());
  EXPECT_EQ(mount_option((*r)[3].super_options, "addr"), "10.20.0.15");
  EXPECT_EQ(mount_option((*r)[3].super_options, "proto"), "tcp");
}

TEST(Mountinfo, OptionValuesAsProcfs) {
  bool found = false;
  EXPECT_EQ(mount_option("rw,addr=1.1.1.1", "addr", &found), "1.1.1.1");
  EXPECT_TRUE(found);
  EXPECT_EQ(mount_option("rw,addr=2.2.2.2=3", "addr"), "2.2.2.2");   // between the first and second '='
  EXPECT_EQ(mount_option("addr=1.1.1.1,addr", "addr", &found), "");  // the last one wins
  EXPECT_TRUE(found);
  EXPECT_EQ(mount_option("rw,vers=3", "addr", &found), "");
  EXPECT_FALSE(found);
  EXPECT_EQ(mount_option("", "addr", &found), "");
  EXPECT_FALSE(found);
  EXPECT_EQ(mount_option("rw", "rw", &found), "");
  EXPECT_TRUE(found);
}

TEST(Mountinfo, MalformedLinesNameFileAndLine) {
  const std::string good = "22 28 0:21 / /sys rw shared:7 - sysfs sysfs rw\n";
  for (std::string_view bad : {
           "22 28 0:21 / /sys rw - sysfs\n",                    // too few fields
           "22 28 0:21 / /sys rw shared:7 x sysfs sysfs rw\n",  // no separator
           "x 28 0:21 / /sys rw shared:7 - sysfs sysfs rw\n",   // mount ID
           "22 y 0:21 / /sys rw shared:7 - sysfs sysfs rw\n",   // parent ID
           "22  28 0:21 / /sys rw - sysfs sysfs rw\n",          // two spaces: procfs splits on single spaces
           "\n",                                                // a blank line
       }) {
    auto r = parse_mountinfo(good + std::string(bad), "/proc/self/mountinfo");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().find("/proc/self/mountinfo:2: "), std::string::npos) << r.error();
  }
  auto empty = parse_mountinfo("", "f");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace llmon::procfs
