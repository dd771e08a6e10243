// The Hyperscan Matcher against the RE2 one (matcher.h): the same matches,
// groups and matches_none() on the built-in packs' corpus, on lines made by
// cutting, joining and mutating it, and on random bytes; and the rewriting
// of patterns for Hyperscan (hyperscan_expression.h).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "app/embedded_file.h"
#include "logwatch/hyperscan_expression.h"
#include "logwatch/matcher.h"
#include "logwatch/pack_corpus.h"
#include "logwatch/rule_file.h"

namespace llmon::logwatch {
namespace {

TEST(HyperscanExpression, NamedGroupsBecomeNonCapturingOutsideClassesAndEscapes) {
  EXPECT_EQ(*hyperscan_expression({"a(?P<x>b+)c(?P<long_name>d)"}), "a(?:b+)c(?:d)");
  EXPECT_EQ(*hyperscan_expression({R"(\(?P<x>)"}), R"(\(?P<x>)");
  EXPECT_EQ(*hyperscan_expression({"[(?P<x>]y"}), "[(?P<x>]y");
  EXPECT_EQ(*hyperscan_expression({"[]](?P<x>z)"}), "[]](?:z)");
  EXPECT_EQ(*hyperscan_expression({"[^]](?P<x>z)"}), "[^]](?:z)");
  EXPECT_EQ(*hyperscan_expression({"[[:alpha:]](?P<x>z)"}), "[[:alpha:]](?:z)");
  EXPECT_EQ(*hyperscan_expression({R"(\Q(?P<x>\E(?P<y>q))"}), R"(\Q(?P<x>\E(?:q))");
  EXPECT_EQ(*hyperscan_expression({"a.b (c)", true}), "a\\x2eb\\x20\\x28c\\x29");
  // RE2 folds Latin-1 letters, Hyperscan ASCII only: such patterns stay with RE2.
  EXPECT_FALSE(hyperscan_expression({"caf\xe9", false, true}));
  EXPECT_FALSE(hyperscan_expression({"(?i)caf\xe9"}));
  EXPECT_TRUE(hyperscan_expression({"caf\xe9"}));
}

std::vector<Pattern> patterns() {
  std::vector<Pattern> out;
  for (const auto& f : app::default_logwatch_rule_files()) {
    auto rules = parse_log_rules(f.content, std::string(f.name));
    EXPECT_TRUE(rules) << rules.error();
    if (rules)
      for (const LogRule& r : *rules) out.push_back({r.pattern, r.literal, r.case_insensitive});
  }
  // Syntax at the edges of what the engines share.
  const std::vector<Pattern> extra = {
      {"No space left on device (x)", true},
      {"error: (?P<code>E[0-9]{3})", false, true},
      {"^Killed$"},
      {"^\\s*at (?P<frame>[A-Za-z.]+)\\("},
      {"x*"},                    // matches every line, even the empty one
      {"\\pL{3}[0-9]"},          // Unicode class: RE2 only
      {"(?U)a+b"},               // RE2's ungreedy flag: RE2 only
      {"caf\xe9", false, true},  // a Latin-1 letter without case: RE2 only
      {"[\\x80-\\xff]{2}"},
      {"\\bERROR\\b.*\\btimeout=(?P<t>[0-9]+)ms"},
      {"a\\vb|\\x00"},
  };
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

std::vector<std::string> lines() {
  std::vector<std::string> base;
  for (const auto& c : testing::pack_positives()) base.push_back(c.line);
  for (const auto& l : testing::pack_negatives()) base.push_back(l);
  for (const char* l : {"Killed", "Killed\n", " \tat foo.Bar(x)", "ERROR timeout=12ms", "a\vb", "CAF\xc9", "caf\xe9",
                        "\xc3\xa9\xc3\xa9", "abc1", "aab", "error: e123", "ERROR: E999"})
    base.emplace_back(l);
  std::mt19937 rng(18);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::vector<std::string> out = base;
  for (int i = 0; i < 20000; ++i) {
    const std::string& a = base[pick(base.size())];
    const std::string& b = base[pick(base.size())];
    std::string l;
    switch (pick(5)) {
      case 0:  // a piece of a line
        l = a.substr(pick(a.size() + 1));
        l = l.substr(0, pick(l.size() + 1));
        break;
      case 1:  // two lines joined
        l = a + (pick(2) ? " " : "") + b;
        break;
      case 2:  // a few bytes changed
        l = a;
        for (size_t k = 0, n = 1 + pick(4); k < n && !l.empty(); ++k) l[pick(l.size())] = static_cast<char>(pick(256));
        break;
      case 3:  // a line inside random bytes
        for (size_t k = 0, n = pick(20); k < n; ++k) l += static_cast<char>(pick(256));
        l += a;
        for (size_t k = 0, n = pick(20); k < n; ++k) l += static_cast<char>(pick(256));
        break;
      default:  // random bytes
        for (size_t k = 0, n = pick(120); k < n; ++k) l += static_cast<char>(pick(256));
    }
    out.push_back(std::move(l));
  }
  return out;
}

// Returns how many lines matched something.
size_t compare(const std::vector<Pattern>& p, size_t max_fallbacks) {
  auto re2 = Matcher::build(p, MatchEngine::kRe2);
  auto hs = Matcher::build(p, MatchEngine::kHyperscan);
  EXPECT_TRUE(re2) << re2.error();
  EXPECT_TRUE(hs) << hs.error();
  if (!re2 || !hs) return 0;
  EXPECT_EQ((*re2)->engine(), "re2");
  EXPECT_EQ((*hs)->engine(), "hyperscan");
  EXPECT_LE((*hs)->fallback_patterns(), max_fallbacks);
  std::vector<Match> a, b;
  size_t matched = 0;
  for (const std::string& line : lines()) {
    (*re2)->match(line, a);
    (*hs)->match(line, b);
    EXPECT_EQ(a.size(), b.size()) << line;
    if (a.size() != b.size()) continue;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].pattern, b[i].pattern) << line;
      EXPECT_EQ(a[i].groups, b[i].groups) << line;
    }
    EXPECT_EQ((*re2)->matches_none(line), a.empty()) << line;
    EXPECT_EQ((*hs)->matches_none(line), b.empty()) << line;
    matched += a.empty() ? 0 : 1;
  }
  return matched;
}

TEST(MatcherDiff, HyperscanGivesWhatRe2GivesOnThePacks) {
  if (!Matcher::hyperscan_available()) GTEST_SKIP() << "llmon was built without Hyperscan (LLMON_HYPERSCAN=OFF)";
  std::vector<Pattern> p = patterns();
  p.resize(p.size() - 11);  // the packs' own: every one runs in Hyperscan
  const size_t matched = compare(p, 0);
  EXPECT_GT(matched, 1000u);  // the comparison saw many matches, not only misses
  EXPECT_LT(matched, 20000u);
}

TEST(MatcherDiff, HyperscanGivesWhatRe2GivesAtTheEdgesOfTheSyntax) {
  if (!Matcher::hyperscan_available()) GTEST_SKIP() << "llmon was built without Hyperscan (LLMON_HYPERSCAN=OFF)";
  // The caseless Latin-1 letter stays with RE2, and \pL or (?U) where
  // Hyperscan does not take them even as a prefilter.
  auto hs = Matcher::build(patterns(), MatchEngine::kHyperscan);
  ASSERT_TRUE(hs) << hs.error();
  EXPECT_GE((*hs)->fallback_patterns(), 1u);
  compare(patterns(), 3);
}

TEST(MatcherDiff, NoPatterns) {
  for (MatchEngine e : {MatchEngine::kRe2, MatchEngine::kDefault}) {
    auto m = Matcher::build({}, e);
    ASSERT_TRUE(m) << m.error();
    std::vector<Match> out;
    (*m)->match("anything", out);
    EXPECT_TRUE(out.empty());
    EXPECT_TRUE((*m)->matches_none("anything"));
  }
}

}  // namespace
}  // namespace llmon::logwatch
