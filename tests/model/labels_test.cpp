#include "model/labels.h"
#include "model/sample.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>

namespace llmon::model {
namespace {

Labels L(std::vector<Label> p) {
  auto l = Labels::make(std::move(p));
  EXPECT_TRUE(l.has_value()) << l.error();
  return l ? *l : Labels();
}

TEST(Labels, SortsAndDropsEmptyValues) {
  Labels l = L({{"job", "node"}, {"__name__", "up"}, {"empty", ""}, {"instance", "a:1"}});
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l.pairs()[0].name, "__name__");
  EXPECT_EQ(l.pairs()[1].name, "instance");
  EXPECT_EQ(l.pairs()[2].name, "job");
  EXPECT_EQ(l.get("job"), "node");
  EXPECT_EQ(l.get("empty"), "");
  EXPECT_EQ(l.get("zzz"), "");
}

TEST(Labels, RejectsDuplicateAndEmptyNames) {
  auto dup = Labels::make({{"a", "1"}, {"a", "2"}});
  ASSERT_FALSE(dup.has_value());
  EXPECT_NE(dup.error().find("duplicate label name \"a\""), std::string::npos) << dup.error();
  auto empty = Labels::make({{"", "1"}});
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().find("empty label name"), std::string::npos);
}

TEST(Labels, HashIgnoresInputOrderAndSeparatesFields) {
  EXPECT_EQ(L({{"a", "1"}, {"b", "2"}}).hash(), L({{"b", "2"}, {"a", "1"}}).hash());
  EXPECT_EQ(L({{"a", "1"}, {"b", "2"}}), L({{"b", "2"}, {"a", "1"}}));
  EXPECT_NE(L({{"ab", "c"}}).hash(), L({{"a", "bc"}}).hash());
  EXPECT_NE(L({{"a", "1"}}).hash(), L({{"a", "2"}}).hash());
  EXPECT_NE(L({}).hash(), L({{"a", "1"}}).hash());
}

TEST(Labels, OrdersLexicographically) {
  EXPECT_LT(L({{"a", "1"}}), L({{"a", "2"}}));
  EXPECT_LT(L({{"a", "1"}}), L({{"a", "1"}, {"b", "1"}}));
  EXPECT_LT(L({{"a", "9"}, {"b", "1"}}), L({{"b", "0"}}));
  EXPECT_FALSE(L({{"a", "1"}}) < L({{"a", "1"}}));
}

TEST(Labels, PrintsEscapedPrometheusForm) {
  EXPECT_EQ(L({{"b", "x\"y\\z\n"}, {"a", "1"}}).to_string(), R"({a="1", b="x\"y\\z\n"})");
  EXPECT_EQ(Labels().to_string(), "{}");
}

TEST(Staleness, OnlyTheExactPayloadIsStale) {
  EXPECT_EQ(std::bit_cast<uint64_t>(stale_nan()), 0x7ff0000000000002ull);
  EXPECT_TRUE(std::isnan(stale_nan()));
  EXPECT_TRUE(is_stale(stale_nan()));
  EXPECT_FALSE(is_stale(std::nan("")));
  EXPECT_FALSE(is_stale(std::bit_cast<double>(0x7ff0000000000001ull)));
  EXPECT_FALSE(is_stale(0.0));
  EXPECT_FALSE(is_stale(INFINITY));
}

}  // namespace
}  // namespace llmon::model
