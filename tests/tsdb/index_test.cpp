#include "tsdb/index.h"

#include <gtest/gtest.h>

namespace llmon::tsdb {
namespace {

using model::Label;
using Type = Matcher::Type;

Labels L(std::vector<Label> pairs) {
  auto l = Labels::make(std::move(pairs));
  EXPECT_TRUE(l.has_value()) << l.error();
  return *l;
}

class IndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_.add(1, L({{"__name__", "up"}, {"job", "node"}, {"instance", "a"}}));
    index_.add(2, L({{"__name__", "up"}, {"job", "node"}, {"instance", "b"}}));
    index_.add(3, L({{"__name__", "up"}, {"job", "gpu"}}));  // no instance
    index_.add(4, L({{"__name__", "temp"}, {"gpu", "0"}, {"job", "gpu"}}));
    index_.add(5, L({{"__name__", "temp"}, {"gpu", "1"}, {"job", "gpu"}}));
  }
  Postings sel(std::vector<Matcher> ms) {
    auto p = index_.select(ms);
    EXPECT_TRUE(p.has_value()) << p.error();
    return p ? *p : Postings{};
  }
  Index index_;
};

TEST_F(IndexTest, FindAndLabels) {
  EXPECT_EQ(index_.find(L({{"job", "node"}, {"__name__", "up"}, {"instance", "b"}})), 2u);
  EXPECT_EQ(index_.find(L({{"__name__", "up"}, {"job", "node"}})), 0u);
  ASSERT_NE(index_.labels(4), nullptr);
  EXPECT_EQ(index_.labels(4)->get("gpu"), "0");
  EXPECT_EQ(index_.labels(99), nullptr);
  EXPECT_EQ(index_.num_series(), 5u);
}

TEST_F(IndexTest, NamesAndValuesSorted) {
  EXPECT_EQ(index_.label_names(), (std::vector<std::string>{"__name__", "gpu", "instance", "job"}));
  EXPECT_EQ(index_.label_values("job"), (std::vector<std::string>{"gpu", "node"}));
  EXPECT_EQ(index_.label_values("nope"), std::vector<std::string>{});
}

TEST_F(IndexTest, EqAndNeq) {
  EXPECT_EQ(sel({{Type::kEq, "__name__", "up"}}), (Postings{1, 2, 3}));
  EXPECT_EQ(sel({{Type::kEq, "__name__", "up"}, {Type::kEq, "job", "node"}}), (Postings{1, 2}));
  EXPECT_EQ(sel({{Type::kEq, "__name__", "nope"}}), Postings{});
  // Neq selects series without the label too (their value is "").
  EXPECT_EQ(sel({{Type::kNeq, "instance", "a"}}), (Postings{2, 3, 4, 5}));
}

TEST_F(IndexTest, EmptyValueSemantics) {
  // {instance=""}: series without the label.
  EXPECT_EQ(sel({{Type::kEq, "instance", ""}}), (Postings{3, 4, 5}));
  // {instance!=""}: series with the label.
  EXPECT_EQ(sel({{Type::kNeq, "instance", ""}}), (Postings{1, 2}));
  EXPECT_EQ(sel({{Type::kEq, "absent_label", ""}}), (Postings{1, 2, 3, 4, 5}));
  EXPECT_EQ(sel({{Type::kNeq, "absent_label", ""}}), Postings{});
}

TEST_F(IndexTest, RegexFullyAnchored) {
  EXPECT_EQ(sel({{Type::kRe, "instance", "a|b"}}), (Postings{1, 2}));
  EXPECT_EQ(sel({{Type::kRe, "job", "no"}}), Postings{});  // not a prefix match
  EXPECT_EQ(sel({{Type::kRe, "job", "n.*"}}), (Postings{1, 2}));
  // A regex matching "" also selects series lacking the label.
  EXPECT_EQ(sel({{Type::kRe, "instance", "a|"}}), (Postings{1, 3, 4, 5}));
  EXPECT_EQ(sel({{Type::kRe, "gpu", ".*"}}), (Postings{1, 2, 3, 4, 5}));
  EXPECT_EQ(sel({{Type::kRe, "gpu", ".+"}}), (Postings{4, 5}));
}

TEST_F(IndexTest, NegativeRegex) {
  EXPECT_EQ(sel({{Type::kNre, "gpu", "0"}}), (Postings{1, 2, 3, 5}));
  // !~ ".+" keeps only series without the label.
  EXPECT_EQ(sel({{Type::kNre, "gpu", ".+"}}), (Postings{1, 2, 3}));
  // !~ "|0" (matches "") drops series without the label.
  EXPECT_EQ(sel({{Type::kNre, "gpu", "|0"}}), (Postings{5}));
  EXPECT_EQ(sel({{Type::kNre, "job", "gpu"}, {Type::kEq, "__name__", "up"}}), (Postings{1, 2}));
}

TEST_F(IndexTest, Errors) {
  EXPECT_FALSE(index_.select({}).has_value());
  EXPECT_FALSE(index_.select({{Type::kEq, "", "x"}}).has_value());
  auto bad = index_.select({{Type::kRe, "job", "(unclosed"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().find("job"), std::string::npos);
}

TEST_F(IndexTest, RemoveCleansPostingsAndNames) {
  size_t before = index_.bytes();
  index_.remove({4, 5, 42});
  EXPECT_LT(index_.bytes(), before);
  EXPECT_EQ(index_.all(), (Postings{1, 2, 3}));
  EXPECT_EQ(index_.label_names(), (std::vector<std::string>{"__name__", "instance", "job"}));
  EXPECT_EQ(sel({{Type::kEq, "job", "gpu"}}), (Postings{3}));
  EXPECT_EQ(index_.find(L({{"__name__", "temp"}, {"gpu", "0"}, {"job", "gpu"}})), 0u);
  index_.add(6, L({{"__name__", "temp"}, {"gpu", "0"}, {"job", "gpu"}}));
  EXPECT_EQ(sel({{Type::kEq, "gpu", "0"}}), (Postings{6}));
}

TEST(IndexHash, ManySeriesResolveExactly) {
  // No real FNV collision is constructed here; this checks lookups over many series.
  Index index;
  for (SeriesRef r = 1; r <= 2000; ++r) index.add(r, L({{"__name__", "m"}, {"i", std::to_string(r)}}));
  for (SeriesRef r = 1; r <= 2000; r += 97) EXPECT_EQ(index.find(L({{"__name__", "m"}, {"i", std::to_string(r)}})), r);
}

TEST(PostingsOps, SetOperations) {
  Postings a{1, 3, 5, 7}, b{3, 4, 7, 9};
  EXPECT_EQ(intersect(a, b), (Postings{3, 7}));
  EXPECT_EQ(subtract(a, b), (Postings{1, 5}));
  EXPECT_EQ(merge({&a, &b}), (Postings{1, 3, 4, 5, 7, 9}));
  EXPECT_EQ(merge({}), Postings{});
}

}  // namespace
}  // namespace llmon::tsdb
