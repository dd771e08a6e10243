#include "base/strings.h"

#include <gtest/gtest.h>

namespace llmon::base {
namespace {

TEST(Strings, ParseBoolWord) {
  for (const char* t : {"true", "1", "yes", "on"}) EXPECT_EQ(parse_bool_word(t), std::optional<bool>(true)) << t;
  for (const char* f : {"false", "0", "no", "off"}) EXPECT_EQ(parse_bool_word(f), std::optional<bool>(false)) << f;
  for (const char* bad : {"", "True", "maybe", "2", " true"}) EXPECT_FALSE(parse_bool_word(bad).has_value()) << bad;
}

TEST(Strings, SplitFieldsSkipsRuns) {
  auto f = split_fields("  a\t b   c ");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[2], "c");
  EXPECT_TRUE(split_fields("").empty());
}

TEST(Strings, ParseNumbersRejectTrailingJunk) {
  EXPECT_EQ(parse_u64("42"), std::optional<uint64_t>(42));
  EXPECT_FALSE(parse_u64("42x"));
  EXPECT_FALSE(parse_u64("-1"));
  EXPECT_EQ(parse_i64("-7"), std::optional<int64_t>(-7));
  EXPECT_EQ(parse_double("+1.5"), std::optional<double>(1.5));
  EXPECT_FALSE(parse_double("1.5.2"));
}

}  // namespace
}  // namespace llmon::base
