#include "procfs/vmstat.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(VmstatParser, ParsesNameValuePairs) {
  auto v = parse_vmstat("nr_free_pages 1369396\npgfault 9837162535\noom_kill 2\n");
  ASSERT_TRUE(v) << v.error();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ((*v)[0].name, "nr_free_pages");
  EXPECT_EQ((*v)[0].value, 1369396);
  EXPECT_EQ((*v)[1].value, 9837162535.0);
  EXPECT_EQ((*v)[2].name, "oom_kill");
}

TEST(VmstatParser, EmptyInputAndBlankLines) {
  auto v = parse_vmstat("");
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->empty());
  auto b = parse_vmstat("\npgfault 1\n\n");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->size(), 1u);
}

TEST(VmstatParser, BadValueFailsAndKeepsEarlierFields) {
  std::vector<VmstatField> out;
  Status s = parse_vmstat("pgpgin 1\npgfoo 1x\npgpgout 2\n", out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("/proc/vmstat:2:"), std::string::npos) << s.message();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "pgpgin");
}

TEST(VmstatParser, NameWithoutValueIsAnError) {
  // Also what a read cut right after a name looks like.
  auto v = parse_vmstat("pgpgin 1\npgpgout");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().find("pgpgout"), std::string::npos) << v.error();
}

}  // namespace
}  // namespace llmon::procfs
