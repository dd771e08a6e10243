#include "procfs/mdstat.h"

#include <gtest/gtest.h>

#include "base/file_reader.h"
#include "support/test_paths.h"

namespace llmon::procfs {
namespace {

const MdStat* find(const std::vector<MdStat>& mds, std::string_view name) {
  for (const auto& m : mds)
    if (m.name == name) return &m;
  return nullptr;
}

TEST(Mdstat, FixtureArrays) {
  auto text = base::read_file(testing::fixture("proc/mdstat"));
  ASSERT_TRUE(text) << text.error();
  auto mds = parse_mdstat(*text, "mdstat");
  ASSERT_TRUE(mds) << mds.error();
  ASSERT_EQ(mds->size(), 8u);
  const MdStat* md1 = find(*mds, "md1");  // bitmap line, in sync
  ASSERT_NE(md1, nullptr);
  EXPECT_EQ(md1->state, "active");
  EXPECT_EQ(md1->disks_total, 2);
  EXPECT_EQ(md1->disks_active, 2);
  EXPECT_EQ(md1->blocks_total, 937568256);
  EXPECT_EQ(md1->blocks_synced, 937568256);
  const MdStat* md2 = find(*mds, "md2");  // resync, then the bitmap line
  ASSERT_NE(md2, nullptr);
  EXPECT_EQ(md2->state, "resyncing");
  EXPECT_EQ(md2->disks_total, 8);
  EXPECT_EQ(md2->blocks_total, 70312519680);
  EXPECT_EQ(md2->blocks_synced, 3210524672);
  const MdStat* md3 = find(*mds, "md3");  // a failed and a spare disk, recovering
  ASSERT_NE(md3, nullptr);
  EXPECT_EQ(md3->state, "recovering");
  EXPECT_EQ(md3->disks_total, 4);
  EXPECT_EQ(md3->disks_active, 3);
  EXPECT_EQ(md3->disks_down, 1);
  EXPECT_EQ(md3->disks_failed, 1);
  EXPECT_EQ(md3->disks_spare, 1);
  EXPECT_EQ(md3->blocks_synced, 35245056);
  const MdStat* md4 = find(*mds, "md4");  // raid0: disks counted on the device line
  ASSERT_NE(md4, nullptr);
  EXPECT_EQ(md4->disks_total, 2);
  EXPECT_EQ(md4->disks_active, 2);
  EXPECT_EQ(find(*mds, "md5")->state, "checking");
  EXPECT_EQ(find(*mds, "md5")->blocks_synced, 508836544);
  EXPECT_EQ(find(*mds, "md6")->state, "resyncing");  // resync=DELAYED
  EXPECT_EQ(find(*mds, "md6")->blocks_synced, 0);
  const MdStat* md127 = find(*mds, "md127");
  ASSERT_NE(md127, nullptr);
  EXPECT_EQ(md127->state, "inactive");
  EXPECT_EQ(md127->disks_total, 0);
  EXPECT_EQ(md127->disks_spare, 1);
  EXPECT_EQ(md127->blocks_total, 1953382488);
}

TEST(Mdstat, EmptyAndNoArrays) {
  auto mds = parse_mdstat("Personalities : \nunused devices: <none>\n", "mdstat");
  ASSERT_TRUE(mds) << mds.error();
  EXPECT_TRUE(mds->empty());
}

TEST(Mdstat, ErrorsNameFileAndLine) {
  struct Case {
    const char* text;
    const char* where;
  } cases[] = {
      {"Personalities : [raid1]\nmd0 : active\n", "mdstat:2:"},
      {"md0 : active raid1 sda1[0] sdb1[1]\n      1046528 blocks\n", "mdstat:1:"},  // too few lines
      {"md0 : active raid1 sda1[0] sdb1[1]\n      many blocks [2/2] [UU]\n\n\n", "mdstat:2:"},
      {"md0 : active raid1 sda1[0] sdb1[1]\n      1046528 blocks super 1.2\n\n\n", "mdstat:2:"},  // no [n/m]
      {"md0 : active raid1 sda1[0] sdb1[1]\n      1046528 blocks super 1.2 [2/2] [UU]\n"
       "      [>....]  resync = x% (1/2) finish=1.0min speed=1K/sec\n\n",
       "mdstat:3:"},
      {"md0 : active raid1 sda1[0] sdb1[1]\n      1046528 blocks super 1.2 [2/2] [UU]\n"
       "      [>....]  resync = 1.0% finish=1.0min speed=1K/sec\n\n",
       "mdstat:3:"},
  };
  for (const auto& c : cases) {
    auto mds = parse_mdstat(c.text, "mdstat");
    ASSERT_FALSE(mds) << c.text;
    EXPECT_NE(mds.error().find(c.where), std::string::npos) << mds.error();
  }
}

TEST(Mdstat, PendingResyncHasNothingSynced) {
  auto mds = parse_mdstat(
      "md0 : active raid1 sda1[0] sdb1[1]\n      1046528 blocks super 1.2 [2/2] [UU]\n"
      "      resync=PENDING\n\n",
      "mdstat");
  ASSERT_TRUE(mds) << mds.error();
  ASSERT_EQ(mds->size(), 1u);
  EXPECT_EQ((*mds)[0].state, "resyncing");
  EXPECT_EQ((*mds)[0].blocks_synced, 0);
}

}  // namespace
}  // namespace llmon::procfs
