#include "procfs/cpu_list.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

TEST(CpuListParser, ParsesRangesAndSingles) {
  auto l = parse_cpu_list("0-2,5,8-9\n");
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(*l, (std::vector<uint32_t>{0, 1, 2, 5, 8, 9}));
}

TEST(CpuListParser, EmptyListsAreEmpty) {
  for (const char* s : {"", "\n", " \n", ",,"}) {
    auto l = parse_cpu_list(s);
    ASSERT_TRUE(l) << s;
    EXPECT_TRUE(l->empty()) << s;
  }
}

TEST(CpuListParser, MalformedItemsAreErrors) {
  for (const char* s : {"a", "3-1", "1-2-3", "1-", "-1", "0-999999", "1 2"}) {
    auto l = parse_cpu_list(s);
    EXPECT_FALSE(l) << s;
  }
}

}  // namespace
}  // namespace llmon::procfs
