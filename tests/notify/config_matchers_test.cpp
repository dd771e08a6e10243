// Alertmanager label matchers: the classic parser (cases from Alertmanager's
// pkg/labels/parse_test.go behaviour, checked with amtool), matching with
// anchored RE2, rendering, ordering, Go quoting.
#include <gtest/gtest.h>

#include "go/strconv.h"
#include "notify/routing/matchers.h"

namespace llmon::notify {
namespace {

Matcher must(MatchType t, const std::string& n, const std::string& v) {
  auto m = Matcher::make(t, n, v);
  EXPECT_TRUE(m.has_value()) << m.error();
  return *m;
}

TEST(MatchersParse, SingleMatcherForms) {
  struct Case {
    const char* in;
    MatchType type;
    const char* name;
    const char* value;
  } cases[] = {
      {"foo=bar", MatchType::kEqual, "foo", "bar"},
      {"foo = \"bar\"", MatchType::kEqual, "foo", "bar"},
      {"  foo!=bar  ", MatchType::kNotEqual, "foo", "bar"},
      {"foo=~\"b.*\"", MatchType::kRegexp, "foo", "b.*"},
      {"foo!~b.*", MatchType::kNotRegexp, "foo", "b.*"},
      {"foo=", MatchType::kEqual, "foo", ""},
      {"foo=\"\"", MatchType::kEqual, "foo", ""},
      {"a:b=c", MatchType::kEqual, "a:b", "c"},  // classic syntax allows ':'
      {R"(foo="a\"b")", MatchType::kEqual, "foo", "a\"b"},
      {R"(foo="a\nb")", MatchType::kEqual, "foo", "a\nb"},
      {R"(foo="a\\b")", MatchType::kEqual, "foo", "a\\b"},
      {R"(foo="a\qb")", MatchType::kEqual, "foo", "a\\qb"},  // spurious escape kept
      {R"(foo=a\)", MatchType::kEqual, "foo", "a\\"},        // trailing backslash literal
      {"foo=bar baz", MatchType::kEqual, "foo", "bar baz"},
      {"foo=\xc3\xa9t\xc3\xa9", MatchType::kEqual, "foo", "\xc3\xa9t\xc3\xa9"},
  };
  for (const auto& c : cases) {
    auto m = parse_matcher(c.in);
    ASSERT_TRUE(m.has_value()) << c.in << ": " << m.error();
    EXPECT_EQ(m->type(), c.type) << c.in;
    EXPECT_EQ(m->name(), c.name) << c.in;
    EXPECT_EQ(m->value(), c.value) << c.in;
  }
}

TEST(MatchersParse, SingleMatcherErrors) {
  struct Case {
    const char* in;
    const char* error;
  } cases[] = {
      {"", "bad matcher format"},
      {"foo", "bad matcher format"},
      {"=bar", "bad matcher format"},
      {"1foo=bar", "bad matcher format"},
      {"foo==bar", "unescaped double quote"},  // value `=bar`? no: `=` then `=bar` is the value
      {"foo=\"a\"b\"", "unescaped double quote"},
      {"foo=\"abc", "unescaped double quote"},
      {"foo=a\"", "unescaped double quote"},
      {"foo=~\"(a\"", "invalid regular expression"},
      {"foo=\"\xff\"", "not valid UTF-8"},
  };
  for (const auto& c : cases) {
    auto m = parse_matcher(c.in);
    if (std::string(c.in) == "foo==bar") {
      // `foo` `=` `=bar`: a valid equality matcher on "=bar", as in Alertmanager.
      ASSERT_TRUE(m.has_value()) << m.error();
      EXPECT_EQ(m->value(), "=bar");
      continue;
    }
    ASSERT_FALSE(m.has_value()) << c.in;
    EXPECT_NE(m.error().find(c.error), std::string::npos) << c.in << " -> " << m.error();
  }
}

TEST(MatchersParse, ListSyntax) {
  auto ms = parse_matchers(R"({foo = "bar", dings != "bums", })");
  ASSERT_TRUE(ms.has_value()) << ms.error();
  ASSERT_EQ(ms->size(), 2u);
  EXPECT_EQ((*ms)[0].to_string(), R"(foo="bar")");
  EXPECT_EQ((*ms)[1].to_string(), R"(dings!="bums")");

  ms = parse_matchers(R"(quote="She said: \"Hi, ladies!\"",statuscode=~"5..")");
  ASSERT_TRUE(ms.has_value()) << ms.error();
  ASSERT_EQ(ms->size(), 2u);
  EXPECT_EQ((*ms)[0].value(), "She said: \"Hi, ladies!\"");
  EXPECT_EQ((*ms)[1].value(), "5..");

  ms = parse_matchers(R"(foo="a,b",bar=c)");
  ASSERT_TRUE(ms.has_value());
  ASSERT_EQ(ms->size(), 2u);
  EXPECT_EQ((*ms)[0].value(), "a,b");

  for (const char* empty : {"", "{}", "{ }", " "}) {
    ms = parse_matchers(empty);
    ASSERT_TRUE(ms.has_value()) << empty;
    EXPECT_TRUE(ms->empty()) << empty;
  }
}

TEST(MatchersParse, ListErrorsNamePosition) {
  auto ms = parse_matchers("{foo=a,, bar=b}");
  ASSERT_FALSE(ms.has_value());
  EXPECT_EQ(ms.error(), "position 8: bad matcher format: ");
  ms = parse_matchers("a=b, c=~\"(\"");
  ASSERT_FALSE(ms.has_value());
  EXPECT_EQ(ms.error().rfind("position 6: invalid regular expression", 0), 0u) << ms.error();
  ms = parse_matchers("a=b,c");
  ASSERT_FALSE(ms.has_value());
  EXPECT_EQ(ms.error(), "position 5: bad matcher format: c");
}

TEST(MatchersParse, TruncatedAndBinaryInputNeverCrash) {
  const std::string full = R"({alertname=~"Disk.*",severity!="info",msg="a\"b,c"})";
  for (size_t n = 0; n <= full.size(); ++n) (void)parse_matchers(full.substr(0, n));
  std::string bin;
  for (int i = 0; i < 256; ++i) bin += static_cast<char>(i);
  (void)parse_matchers(bin);
  (void)parse_matcher(bin);
  SUCCEED();
}

TEST(Matchers, AnchoredRegexAndMissingLabels) {
  Matcher re = must(MatchType::kRegexp, "job", "node|gpu");
  EXPECT_TRUE(re.matches("node"));
  EXPECT_TRUE(re.matches("gpu"));
  EXPECT_FALSE(re.matches("nodex"));  // anchored: not a substring match
  EXPECT_FALSE(re.matches("xgpu"));
  Matcher nre = must(MatchType::kNotRegexp, "job", "a.*");
  EXPECT_TRUE(nre.matches("b"));
  EXPECT_FALSE(nre.matches("abc"));
  Matcher dot = must(MatchType::kRegexp, "m", "a.b");
  EXPECT_FALSE(dot.matches("a\nb"));  // Go's `.` does not match a newline either

  LabelPairs labels = {{"alertname", "X"}, {"job", "node"}};
  EXPECT_TRUE(matches_all({re}, labels));
  EXPECT_TRUE(matches_all({must(MatchType::kEqual, "missing", "")}, labels));
  EXPECT_FALSE(matches_all({must(MatchType::kNotEqual, "missing", "")}, labels));
  EXPECT_TRUE(matches_all({must(MatchType::kRegexp, "missing", ".*")}, labels));
  EXPECT_TRUE(matches_all({}, labels));
}

TEST(Matchers, StringAndSortLikeAlertmanager) {
  Matchers ms = {must(MatchType::kRegexp, "b", "x\"y\\z\nw"), must(MatchType::kEqual, "a", "2"),
                 must(MatchType::kNotEqual, "a", "1"), must(MatchType::kEqual, "a", "1")};
  sort_matchers(ms);
  EXPECT_EQ(matchers_to_string(ms), R"({a="1",a!="1",a="2",b=~"x\"y\\z\nw"})");
  EXPECT_EQ(matchers_to_string({}), "{}");
}

TEST(GoQuote, MatchesStrconvQuote) {
  EXPECT_EQ(go::quote("plain"), "\"plain\"");
  EXPECT_EQ(go::quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(go::quote("\a\b\f\n\r\t\v"), R"("\a\b\f\n\r\t\v")");
  EXPECT_EQ(go::quote(std::string("\x01\x7f", 2)), R"("\x01\x7f")");
  EXPECT_EQ(go::quote("\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5\"");
  EXPECT_EQ(go::quote("\xc2\xa0"), R"("\u00a0")");      // no-break space is not printable for Go
  EXPECT_EQ(go::quote("\xe2\x80\x8b"), R"("\u200b")");  // zero width space
  EXPECT_EQ(go::quote("\xff"), R"("\xff")");
  EXPECT_EQ(go::quote(std::string("a\0b", 3)), R"("a\x00b")");
}

TEST(LabelNames, Validity) {
  EXPECT_TRUE(is_valid_label_name("alertname"));
  EXPECT_TRUE(is_valid_label_name("_a1"));
  EXPECT_FALSE(is_valid_label_name(""));
  EXPECT_FALSE(is_valid_label_name("1a"));
  EXPECT_FALSE(is_valid_label_name("a:b"));
  EXPECT_FALSE(is_valid_label_name("a-b"));
}

}  // namespace
}  // namespace llmon::notify
