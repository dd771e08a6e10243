// label_replace, label_join and selector matchers
// (promql/label_functions.h). Cases from Prometheus's
// promql/promqltest/testdata/functions.test plus Go's Regexp.Expand rules.
#include "promql/label_functions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmon::promql {
namespace {

using model::Labels;
using model::Matcher;

Labels L(std::vector<model::Label> pairs) {
  auto l = Labels::make(std::move(pairs));
  EXPECT_TRUE(l) << l.error();
  return l ? *l : Labels();
}

std::string replace(const Labels& in, std::string_view dst, std::string_view repl, std::string_view src,
                    std::string_view re) {
  auto out = label_replace(in, dst, repl, src, re);
  if (!out) return "error: " + out.error();
  return out->to_string();
}

TEST(LabelReplace, FunctionsTestCases) {
  const Labels in = L({{"__name__", "testmetric"}, {"src", "source-value-10"}});
  EXPECT_EQ(replace(in, "dst", "destination-value-$1", "src", "source-value-(.*)"),
            L({{"__name__", "testmetric"}, {"src", "source-value-10"}, {"dst", "destination-value-10"}}).to_string());
  // No match (anchored: "source-value" alone does not match the whole value).
  EXPECT_EQ(replace(in, "dst", "x", "src", "source-value"), in.to_string());
  // Overwrite the source label itself.
  EXPECT_EQ(replace(in, "src", "$1", "src", "source-value-(.*)"),
            L({{"__name__", "testmetric"}, {"src", "10"}}).to_string());
  // Empty result removes the label.
  EXPECT_EQ(replace(in, "src", "", "src", ".*"), L({{"__name__", "testmetric"}}).to_string());
  // An absent source reads as "": matches "" and sets dst.
  EXPECT_EQ(replace(in, "dst", "value-$1", "nonexistent", "(.*)"),
            L({{"__name__", "testmetric"}, {"src", "source-value-10"}, {"dst", "value-"}}).to_string());
  // The metric name can be the destination.
  EXPECT_EQ(replace(in, "__name__", "renamed", "src", ".*"),
            L({{"__name__", "renamed"}, {"src", "source-value-10"}}).to_string());
}

TEST(LabelReplace, GoExpandTemplate) {
  const Labels in = L({{"v", "ab"}});
  auto r = [&](std::string_view repl, std::string_view re = "(.)(.)") {
    auto out = label_replace(in, "d", repl, "v", re);
    EXPECT_TRUE(out) << out.error();
    return std::string(out ? out->get("d") : "?");
  };
  EXPECT_EQ(r("$2$1"), "ba");
  EXPECT_EQ(r("${1}x"), "ax");
  EXPECT_EQ(r("$1x"), "");           // the group named "1x" does not exist
  EXPECT_EQ(r("[$1_]"), "[]");       // "$1_" is one name too
  EXPECT_EQ(r("$$1"), "$1");         // $$ is a literal $
  EXPECT_EQ(r("cost $"), "cost $");  // a trailing $ stays
  EXPECT_EQ(r("${1"), "${1");        // unclosed brace: literal
  EXPECT_EQ(r("$-"), "$-");          // no name: literal
  EXPECT_EQ(r("$0"), "ab");          // the whole match
  EXPECT_EQ(r("$3"), "");            // no such group
  EXPECT_EQ(r("$01"), "");           // leading zero: a (missing) name, not 1
  EXPECT_EQ(r("$name!", "(?P<name>.)b"), "a!");
  EXPECT_EQ(r("${name}", "(?P<name>.)b"), "a");
  EXPECT_EQ(r("[$1]", "(x)?ab"), "[]");  // unmatched optional group
  EXPECT_EQ(r("$é", "(.)(.)"), "");      // a Unicode letter continues the name
}

TEST(LabelReplace, RegexSemantics) {
  const Labels nl = L({{"v", "a\nb"}});
  // 2.42 anchors ^(?:re)$ without the s flag: `.` does not match a newline.
  EXPECT_EQ(replace(nl, "d", "hit", "v", "a.b"), nl.to_string());
  EXPECT_EQ(replace(nl, "d", "hit", "v", "(?s)a.b"), L({{"v", "a\nb"}, {"d", "hit"}}).to_string());
  // Alternation is inside the anchors.
  const Labels in = L({{"v", "foobar"}});
  EXPECT_EQ(replace(in, "d", "hit", "v", "foo|bar"), in.to_string());
  EXPECT_EQ(replace(in, "d", "$1", "v", "(?i)(FOO)BAR"), L({{"v", "foobar"}, {"d", "foo"}}).to_string());
  // Leftmost-first: the lazy group takes as little as possible.
  EXPECT_EQ(replace(in, "d", "$1", "v", "(.*?)o*bar"), L({{"v", "foobar"}, {"d", "f"}}).to_string());
}

TEST(LabelReplace, Errors) {
  const Labels in = L({{"v", "x"}});
  EXPECT_EQ(replace(in, "dst", "", "v", "(.*"), "error: invalid regular expression in label_replace(): (.*");
  EXPECT_EQ(replace(in, "1dst", "", "v", ".*"), "error: invalid destination label name in label_replace(): 1dst");
  EXPECT_EQ(replace(in, "", "", "v", ".*"), "error: invalid destination label name in label_replace(): ");
  EXPECT_EQ(replace(in, "a-b", "", "v", ".*"), "error: invalid destination label name in label_replace(): a-b");
  // The regex is checked first.
  EXPECT_EQ(replace(in, "1dst", "", "v", "["), "error: invalid regular expression in label_replace(): [");
}

TEST(LabelReplace, ReplacerReusable) {
  auto r = LabelReplacer::make("dst", "$1", "src", "(\\d+)-.*");
  ASSERT_TRUE(r) << r.error();
  const LabelReplacer copy = *r;  // copies share the compiled regex
  EXPECT_EQ(copy.apply(L({{"src", "12-a"}})).get("dst"), "12");
  EXPECT_EQ(r->apply(L({{"src", "7-b"}, {"dst", "old"}})).get("dst"), "7");
  EXPECT_EQ(r->apply(L({{"src", "x-b"}, {"dst", "old"}})).get("dst"), "old");
}

TEST(LabelJoin, FunctionsTestCases) {
  const Labels in = L({{"src", "a"}, {"src1", "b"}, {"src2", "c"}});
  auto j = [&](std::string_view dst, std::string_view sep, std::vector<std::string> srcs) {
    auto out = label_join(in, dst, sep, srcs);
    return out ? out->to_string() : "error: " + out.error();
  };
  EXPECT_EQ(j("dst", "-", {"src", "src1", "src2"}),
            L({{"src", "a"}, {"src1", "b"}, {"src2", "c"}, {"dst", "a-b-c"}}).to_string());
  EXPECT_EQ(j("dst", "", {"src", "src1"}), L({{"src", "a"}, {"src1", "b"}, {"src2", "c"}, {"dst", "ab"}}).to_string());
  // Absent labels join as "".
  EXPECT_EQ(j("dst", ",", {"src", "missing", "src2"}),
            L({{"src", "a"}, {"src1", "b"}, {"src2", "c"}, {"dst", "a,,c"}}).to_string());
  // Overwriting a source.
  EXPECT_EQ(j("src", "-", {"src", "src1"}), L({{"src", "a-b"}, {"src1", "b"}, {"src2", "c"}}).to_string());
  // Empty result (no sources, or all absent) removes dst.
  EXPECT_EQ(j("src", "-", {}), L({{"src1", "b"}, {"src2", "c"}}).to_string());
  EXPECT_EQ(j("src", "", {"x", "y"}), L({{"src1", "b"}, {"src2", "c"}}).to_string());
  EXPECT_EQ(j("dst", "-", {"x", "y"}), L({{"src", "a"}, {"src1", "b"}, {"src2", "c"}, {"dst", "-"}}).to_string());
}

TEST(LabelJoin, Errors) {
  const Labels in = L({{"src", "a"}});
  auto e = label_join(in, "dst", "-", {"src", "bad-name"});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "invalid source label name in label_join(): bad-name");
  auto d = label_join(in, "9dst", "-", {"src"});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error(), "invalid destination label name in label_join(): 9dst");
  // Sources are checked before the destination.
  auto both = label_join(in, "9dst", "-", {""});
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error(), "invalid source label name in label_join(): ");
}

TEST(LabelNames, Validity) {
  EXPECT_TRUE(is_valid_label_name("a"));
  EXPECT_TRUE(is_valid_label_name("_a9"));
  EXPECT_TRUE(is_valid_label_name("__name__"));
  EXPECT_FALSE(is_valid_label_name(""));
  EXPECT_FALSE(is_valid_label_name("9a"));
  EXPECT_FALSE(is_valid_label_name("a.b"));
  EXPECT_FALSE(is_valid_label_name("é"));  // 2.42: ASCII only
}

LabelMatcher M(Matcher::Type t, std::string value) {
  auto m = LabelMatcher::make({t, "job", std::move(value)});
  EXPECT_TRUE(m) << m.error();
  return m ? *m : *LabelMatcher::make({Matcher::Type::kEq, "job", "<never>"});
}

TEST(LabelMatcherTest, EqualityAndEmpty) {
  EXPECT_TRUE(M(Matcher::Type::kEq, "api").matches("api"));
  EXPECT_FALSE(M(Matcher::Type::kEq, "api").matches("api2"));
  EXPECT_TRUE(M(Matcher::Type::kEq, "").matches(""));  // {job=""}: label absent
  EXPECT_TRUE(M(Matcher::Type::kNeq, "api").matches(""));
  EXPECT_FALSE(M(Matcher::Type::kNeq, "api").matches("api"));
}

TEST(LabelMatcherTest, RegexFullyAnchored) {
  const auto re = M(Matcher::Type::kRe, "api|web");
  EXPECT_TRUE(re.matches("api"));
  EXPECT_TRUE(re.matches("web"));
  EXPECT_FALSE(re.matches("apiweb"));
  EXPECT_FALSE(re.matches("xapi"));
  EXPECT_FALSE(M(Matcher::Type::kRe, "ap").matches("api"));
  EXPECT_TRUE(M(Matcher::Type::kRe, "x|").matches(""));  // selects series without the label
  EXPECT_FALSE(M(Matcher::Type::kRe, "x|").matches("y"));
  EXPECT_TRUE(M(Matcher::Type::kRe, "(?i)API").matches("api"));
  EXPECT_TRUE(M(Matcher::Type::kNre, "api.*").matches("web"));
  EXPECT_FALSE(M(Matcher::Type::kNre, "api.*").matches("api-1"));
  EXPECT_TRUE(M(Matcher::Type::kNre, "api").matches(""));
}

TEST(LabelMatcherTest, FastPathsAgreeWithRe2) {
  // Literal, .* and .+ skip RE2; they must give RE2's answers.
  for (const char* v : {"", "api", "a\nb", "api-1", "\n"}) {
    SCOPED_TRACE(v);
    EXPECT_EQ(M(Matcher::Type::kRe, "api").matches(v), std::string(v) == "api");
    EXPECT_EQ(M(Matcher::Type::kRe, ".*").matches(v), M(Matcher::Type::kRe, "(?:.*)").matches(v));
    EXPECT_EQ(M(Matcher::Type::kRe, ".+").matches(v), M(Matcher::Type::kRe, "(?:.+)").matches(v));
    EXPECT_EQ(M(Matcher::Type::kNre, ".*").matches(v), !M(Matcher::Type::kRe, "(?:.*)").matches(v));
  }
  EXPECT_FALSE(M(Matcher::Type::kRe, ".*").matches("a\nb"));
  EXPECT_FALSE(M(Matcher::Type::kRe, ".+").matches(""));
  EXPECT_TRUE(M(Matcher::Type::kRe, "a b/c:d").matches("a b/c:d"));
}

TEST(LabelMatcherTest, InvalidRegex) {
  auto m = LabelMatcher::make({Matcher::Type::kRe, "job", "a(b"});
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().find("invalid regular expression in matcher job=~\"a(b\": "), std::string::npos) << m.error();
  auto n = LabelMatcher::make({Matcher::Type::kNre, "job", "*"});
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().find("job!~\"*\""), std::string::npos) << n.error();
  // Equality matchers never fail, whatever the value.
  EXPECT_TRUE(LabelMatcher::make({Matcher::Type::kEq, "job", "a(b"}));
}

}  // namespace
}  // namespace llmon::promql
