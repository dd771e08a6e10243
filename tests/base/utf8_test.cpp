#include "base/utf8.h"

#include <gtest/gtest.h>

namespace llmon::base {
namespace {

TEST(Utf8, Validates) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("Package id 0"));
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));          // truncated
}

TEST(Utf8, ReplacesRunsLikeGo) {
  EXPECT_EQ(to_valid_utf8("ok"), "ok");
  EXPECT_EQ(to_valid_utf8("Bad\xff\xfeLabel"), "Bad\xef\xbf\xbdLabel");  // one U+FFFD per run
  EXPECT_EQ(to_valid_utf8("\xe2\x82"
                          "A"),
            "\xef\xbf\xbd"
            "A");
  EXPECT_EQ(to_valid_utf8("a\xff"
                          "b\xff"),
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd");
}

}  // namespace
}  // namespace llmon::base
