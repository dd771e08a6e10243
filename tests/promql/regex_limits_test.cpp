// Regular-expression limits of label matchers, as Prometheus 2.42 (Go 1.19's
// regexp/syntax) draws them: a parse tree more than 1000 nodes tall is
// refused with "expression nests too deeply" (maxHeight), naming the whole
// anchored pattern; nested repeat counts whose product passes 1000 are
// "invalid repeat count"; patterns over Go's size budget are "regexp/syntax:
// internal error". RE2, which llmon matches with, has no height limit, so
// promql::go_regexp_nesting_error follows Go's parser to find it.
// The differential test asks a real `prometheus` on 127.0.0.1 (skipped, with
// the reason, when it is not installed).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/api_client.h"
#include "go/regexp.h"
#include "promql/parser.h"
#include "support/http_client.h"
#include "support/prometheus_process.h"
#include "support/test_paths.h"

namespace llmon::promql {
namespace {

std::string repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// n capture groups around `inner`.
std::string groups(size_t n, std::string_view inner = "x") {
  return repeat("(", n) + std::string(inner) + repeat(")", n);
}

// The selector x{a=~"<value>"} (value escaped for a PromQL string).
std::string selector(std::string_view value) {
  std::string q = "x{a=~\"";
  for (char c : value) {
    if (c == '\\' || c == '"') q += '\\';
    q += c;
  }
  return q + "\"}";
}

// llmon's answer to the selector: "OK" or the parse error as the API words it.
std::string llmon_answer(std::string_view value) {
  const std::string q = selector(value);
  ParseResult r = parse(q);
  return r.ok() ? "OK" : r.error.to_string(q);
}

std::string nests(std::string_view value) {
  return "1:3: parse error: error parsing regexp: expression nests too deeply: `^(?:" + std::string(value) + ")$`";
}

bool too_deep(std::string_view pattern) {
  return !go::regexp_nesting_error(pattern).empty();
}

TEST(GoRegexpHeight, TreesUpToOneThousandNodesTallAreAccepted) {
  // Go's maxHeight = 1000: n capture groups around a literal are n + 1 tall.
  EXPECT_FALSE(too_deep(groups(998)));  // 999
  EXPECT_FALSE(too_deep(groups(999)));  // 1000
  EXPECT_TRUE(too_deep(groups(1000)));  // 1001
  EXPECT_EQ(go::regexp_nesting_error(groups(1000)),
            "error parsing regexp: expression nests too deeply: `" + groups(1000) + "`");
  // Prometheus anchors the value as ^(?:value)$: a concatenation one level
  // above it, so 998 groups pass and 999 do not (both checked against
  // Prometheus 2.42, as the differential test below does again).
  EXPECT_EQ(llmon_answer(groups(998)), "OK");
  EXPECT_EQ(llmon_answer(groups(999)), nests(groups(999)));
  EXPECT_EQ(llmon_answer(groups(1000)), nests(groups(1000)));
  EXPECT_EQ(llmon_answer(groups(1001)), nests(groups(1001)));
}

TEST(GoRegexpHeight, WhatCountsAsALevel) {
  // Each of these adds a level per nesting: captures, repetitions.
  EXPECT_FALSE(too_deep(repeat("(?:", 999) + "x" + repeat(")*", 999)));
  EXPECT_TRUE(too_deep(repeat("(?:", 1000) + "x" + repeat(")*", 1000)));
  EXPECT_FALSE(too_deep(repeat("(?:", 999) + "x" + repeat("){1}", 999)));
  EXPECT_TRUE(too_deep(repeat("(?:", 1000) + "x" + repeat("){1}", 1000)));
  EXPECT_FALSE(too_deep(repeat("(", 499) + "x" + repeat(")*", 499)));  // 2 a level: 999
  EXPECT_TRUE(too_deep(repeat("(", 500) + "x" + repeat(")*", 500)));   // 1001
  // These do not: plain groups, and concatenations or alternations nested
  // in their own kind (Go flattens them).
  EXPECT_FALSE(too_deep(repeat("(?:", 5000) + "x" + repeat(")", 5000)));
  EXPECT_FALSE(too_deep(repeat("(?:a", 5000) + "\\d" + repeat(")", 5000)));
  EXPECT_FALSE(too_deep(repeat("(?:x|", 5000) + "y" + repeat(")", 5000)));
  // The innermost part's own height counts: a literal string is 1, a
  // concatenation of a literal and a class 2, an alternation of single
  // characters one class (1), of longer branches 2.
  EXPECT_FALSE(too_deep(groups(999, "abc")));
  EXPECT_TRUE(too_deep(groups(999, "a\\d")));
  EXPECT_FALSE(too_deep(groups(999, "a|b|[cd]|.")));
  EXPECT_TRUE(too_deep(groups(999, "a|bc")));
  EXPECT_FALSE(too_deep(groups(998, "a|bc")));
  EXPECT_FALSE(too_deep(groups(999, "[a]b")));  // [a] is the literal a
  EXPECT_TRUE(too_deep(groups(999, "[ab]c")));
}

TEST(GoRegexpHeight, TheFirstErrorGoMeetsWins) {
  // Go stops at the limit while parsing, before an error later in the
  // pattern; an error before it is reported instead.
  EXPECT_EQ(llmon_answer(groups(1001) + "\\8"), nests(groups(1001) + "\\8"));
  EXPECT_EQ(llmon_answer("\\8" + groups(1001)),
            "1:3: parse error: error parsing regexp: invalid escape sequence: `\\8`");
  EXPECT_EQ(llmon_answer("a{1001}" + groups(1001)),
            "1:3: parse error: error parsing regexp: invalid repeat count: `{1001}`");
  EXPECT_EQ(llmon_answer("\\p{Nope}" + groups(1001)),
            "1:3: parse error: error parsing regexp: invalid character class range: `\\p{Nope}`");
  // Unbalanced after the too-tall part: still the nesting error.
  EXPECT_EQ(llmon_answer("(" + groups(1001)), nests("(" + groups(1001)));
  // Unclosed groups never close into a tall tree: missing ).
  EXPECT_EQ(llmon_answer(repeat("(", 1500) + "x"),
            "1:3: parse error: error parsing regexp: missing closing ): `^(?:" + repeat("(", 1500) + "x)$`");
}

TEST(GoRegexpHeight, DeepPatternsCostLinearTimeAndNoStack) {
  const std::string deep = groups(200000);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(llmon_answer(deep), nests(deep));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST(GoRegexpLimits, RepeatCountsAndSize) {
  // The product of nested counts may not pass 1000: Go's (and RE2's) rule.
  EXPECT_EQ(llmon_answer("(((a{100}){100}){100}){100}"),
            "1:3: parse error: error parsing regexp: invalid repeat count: `{100}`");
  EXPECT_EQ(llmon_answer("((a{2}){2}){250}"), "OK");
  // Over Go 1.19's size budget: its error names the whole pattern ("expression
  // too large" is Go 1.20's wording).
  const std::string big = "(?:" + std::string(4000, 'a') + "){1000}";
  EXPECT_EQ(llmon_answer(big),
            "1:3: parse error: error parsing regexp: regexp/syntax: internal error: `^(?:" + big + ")$`");
}

// ---- Differential: the same selectors against a real Prometheus 2.42 ----

class RegexLimitsPrometheusDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string prometheus = llmon::testing::find_program("prometheus");
    if (prometheus.empty()) GTEST_SKIP() << "prometheus is not installed (Debian: apt install prometheus)";
    std::string t = ::testing::TempDir() + "llmon_regex_limits_XXXXXX";
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
    std::ofstream(dir_ + "/prometheus.yml") << "global: {}\n";
    const Status started =
        prometheus_.start(prometheus, dir_ + "/prometheus.yml", dir_ + "/data", {"--log.level=warn"}, dir_);
    ASSERT_TRUE(started.is_ok()) << started.message();
  }

  void TearDown() override {
    prometheus_.stop();
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  // Prometheus's answer in llmon_answer's terms: "OK", or the parse error
  // without the API's `invalid parameter "query": ` (bad_data only).
  std::string prometheus_answer(std::string_view value) {
    const std::string body = "query=" + net::url_encode(selector(value)) + "&time=100";
    auto r = llmon::testing::http_raw(prometheus_.port(),
                                      "POST /api/v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                                      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
                                          std::to_string(body.size()) + "\r\n\r\n" + body,
                                      false, 60000);
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded()) return "no JSON: " + std::to_string(r.status) + " " + r.error;
    if (j.value("status", "") == "success") return "OK";
    const std::string prefix = "invalid parameter \"query\": ";
    const std::string e = j.value("error", "");
    if (j.value("errorType", "") != "bad_data" || e.rfind(prefix, 0) != 0) return j.value("errorType", "") + ": " + e;
    return e.substr(prefix.size());
  }

  std::string dir_;
  llmon::testing::PrometheusProcess prometheus_;
};

TEST_F(RegexLimitsPrometheusDiffTest, SameAnswersAsPrometheus) {
  std::vector<std::string> values;
  for (size_t n : {997, 998, 999, 1000, 1001}) {
    values.push_back(groups(n));
    values.push_back(repeat("(?:", n) + "x" + repeat(")*", n));
    values.push_back(repeat("(?:", n) + "x" + repeat("){1}", n));
    values.push_back(groups(n, "a\\d"));
    values.push_back(groups(n, "a|b"));
    values.push_back(groups(n, "a|bc"));
    values.push_back(groups(n, "abc"));
    values.push_back(groups(n, "[a]b"));
    values.push_back(groups(n, "[ab]c"));
    values.push_back("(?i)" + groups(n, "[k]"));
    values.push_back(repeat("(?P<n>", n) + "." + repeat(")", n));
  }
  for (size_t n : {498, 499, 500}) values.push_back(repeat("(", n) + "x" + repeat(")+", n));
  values.push_back(repeat("(?:x|", 2000) + "y" + repeat(")", 2000));
  values.push_back(repeat("(?:a", 2000) + "\\d" + repeat(")", 2000));
  values.push_back(groups(1001) + "\\8");
  values.push_back("\\8" + groups(1001));
  values.push_back("(" + groups(1001));
  values.push_back(repeat("(", 1500) + "x");
  values.push_back(groups(50000));
  values.push_back("a{1001}" + groups(1001));
  values.push_back("\\p{Nope}" + groups(1001));
  values.push_back("(((a{100}){100}){100}){100}");
  values.push_back("((a{2}){2}){250}");
  values.push_back("(?:" + std::string(4000, 'a') + "){1000}");
  for (const std::string& v : values) {
    const std::string want = prometheus_answer(v);
    EXPECT_EQ(llmon_answer(v), want) << "value (" << v.size() << " bytes): " << v.substr(0, 60) << " ... "
                                     << v.substr(v.size() > 60 ? v.size() - 60 : 0);
  }
}

}  // namespace
}  // namespace llmon::promql
