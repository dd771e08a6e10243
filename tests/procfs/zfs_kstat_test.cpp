#include "procfs/zfs_kstat.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(ZfsKstatParser, NamedKstatKeepsUint64Lines) {
  auto p = parse_zfs_kstat(
      "13 1 0x01 96 26112 5832741201 94124571122398\n"
      "name                            type data\n"
      "hits                            4    110824371\n"
      "memory_available_bytes          3    -7301120\n"
      "erpt-dropped                    4    0\n"
      "short 4\n",
      "arcstats");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].name, "hits");
  EXPECT_EQ((*p)[0].value, 110824371u);
  EXPECT_EQ((*p)[1].name, "erpt-dropped");
}

TEST(ZfsKstatParser, NoHeaderOrBadValueIsAnError) {
  EXPECT_EQ(parse_zfs_kstat("hits 4 1\n", "f").error(), "f: no \"name type data\" header");
  EXPECT_EQ(parse_zfs_kstat("x\nname type data\nhits 4 1.5\n", "f").error(),
            "f:3: hits: not an unsigned integer: \"1.5\"");
}

TEST(ZfsPoolIoParser, HeaderThenValues) {
  auto p = parse_zfs_pool_io(
      "64 3 0x00 1 80 5834012113 94124570012312\n"
      "nread    nwritten reads    writes   wtime    wlentime wupdate  rtime    rlentime rupdate  wcnt     rcnt\n"
      "412223283200 1021934264320 21022341 82312094 3302178410220 9910221301012 94124561022190 7120411120331 "
      "10123102219010 94124561022181 0        7\n",
      "io");
  ASSERT_TRUE(p) << p.error();
  ASSERT_EQ(p->size(), 12u);
  EXPECT_EQ((*p)[1].name, "nwritten");
  EXPECT_EQ((*p)[1].value, 1021934264320u);
  EXPECT_EQ((*p)[11].name, "rcnt");
  EXPECT_EQ((*p)[11].value, 7u);
  EXPECT_EQ(parse_zfs_pool_io("nread a b c d e f g h i j k\n1 2\n", "io").error(), "io:2: expected 12 values, got 2");
}

TEST(ZfsObjsetParser, DatasetAndCounters) {
  auto p = parse_zfs_objset(
      "49 1 0x01 7 2160 5835012323 94124570132202\n"
      "name                            type data\n"
      "dataset_name                    7    rpool/ROOT/debian\n"
      "writes                          4    913201\n"
      "nunlinked                       4    210330\n",
      "objset-0x36");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->dataset, "rpool/ROOT/debian");
  ASSERT_EQ(p->values.size(), 2u);
  EXPECT_EQ(p->values[1].name, "nunlinked");
  EXPECT_EQ(p->values[1].value, 210330u);
}

TEST(ZfsPoolStateParser, FirstLineLowerCased) {
  EXPECT_EQ(parse_zfs_pool_state("ONLINE\n"), "online");
  EXPECT_EQ(parse_zfs_pool_state("DEGRADED"), "degraded");
}

}  // namespace
}  // namespace llmon::procfs
