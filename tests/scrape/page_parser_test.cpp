#include "scrape/page_parser.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llmon::scrape {
namespace {

struct Got {
  std::string series;
  double value;
  std::optional<int64_t> ts;
};

std::vector<Got> all(std::string_view text, PageFormat f, std::string* err = nullptr, PageParser* keep = nullptr) {
  PageParser local(text, f);
  PageParser& p = keep ? *keep : local;
  std::vector<Got> out;
  for (auto k = p.next(); k != PageParser::Next::kEnd; k = p.next()) {
    if (k == PageParser::Next::kError) {
      if (err) *err = p.error();
      return out;
    }
    out.push_back({std::string(p.sample().series_text), p.sample().value, p.sample().timestamp_ms});
  }
  return out;
}

TEST(PageFormat, FromContentType) {
  EXPECT_EQ(page_format("application/openmetrics-text; version=1.0.0; charset=utf-8"), PageFormat::kOpenMetrics);
  EXPECT_EQ(page_format("Application/OpenMetrics-Text"), PageFormat::kOpenMetrics);
  EXPECT_EQ(page_format("text/plain; version=0.0.4"), PageFormat::kText);
  EXPECT_EQ(page_format(""), PageFormat::kText);
}

TEST(PageParser, TextSamplesAndMetadata) {
  const std::string page =
      "# HELP vllm:num_requests_running Number of requests running.\\nOn GPU.\n"
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{model_name=\"llama\"} 3\n"
      "# a comment\n\n"
      "# TYPE x untyped\n"
      "x 1.5 1700000000000\n";
  PageParser p(page, PageFormat::kText);
  auto got = all(page, PageFormat::kText, nullptr, &p);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].series, "vllm:num_requests_running{model_name=\"llama\"}");
  EXPECT_EQ(got[0].value, 3);
  EXPECT_FALSE(got[0].ts);
  EXPECT_EQ(got[1].ts, 1700000000000);
  const auto& md = p.metadata();
  ASSERT_EQ(md.count("vllm:num_requests_running"), 1u);
  EXPECT_EQ(md.at("vllm:num_requests_running").type, "gauge");
  EXPECT_EQ(md.at("vllm:num_requests_running").help, "Number of requests running.\nOn GPU.");
  EXPECT_EQ(md.at("x").type, "unknown");
}

TEST(PageParser, TextErrorsFailThePage) {
  std::string err;
  auto got = all("a 1\nb{x=} 2\nc 3\n", PageFormat::kText, &err);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
  EXPECT_TRUE(all("# TYPE a bogus\na 1\n", PageFormat::kText, &err).empty());
  EXPECT_NE(err.find("line 1: malformed metadata line"), std::string::npos) << err;
}

TEST(PageParser, OpenMetricsTimestampsExemplarsAndEof) {
  const std::string page =
      "# TYPE foo counter\n"
      "# UNIT foo seconds\n"
      "# HELP foo The \\\"foo\\\" time.\n"
      "foo_total{a=\"b\"} 17.0 1520879607.789 # {trace_id=\"KOO5S4vxi0o\"} 0.67\n"
      "foo_created{a=\"b\"} 1520430000.123\n"
      "# TYPE st stateset\n"
      "st{st=\"a\"} 1\n"
      "# TYPE i info\n"
      "i_info{version=\"1\"} 1\n"
      "# TYPE gh gaugehistogram\n"
      "gh_bucket{le=\"+Inf\"} 3 # {} 1\n"
      "gh_gcount 3\n"
      "# EOF\n";
  PageParser p(page, PageFormat::kOpenMetrics);
  std::string err;
  auto got = all(page, PageFormat::kOpenMetrics, &err, &p);
  ASSERT_TRUE(err.empty()) << err;
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0].series, "foo_total{a=\"b\"}");
  EXPECT_EQ(got[0].value, 17);
  EXPECT_EQ(got[0].ts, 1520879607789);
  EXPECT_EQ(got[1].series, "foo_created{a=\"b\"}");
  EXPECT_DOUBLE_EQ(got[1].value, 1520430000.123);
  EXPECT_EQ(got[4].series, "gh_bucket{le=\"+Inf\"}");
  EXPECT_EQ(p.metadata().at("foo").unit, "seconds");
  EXPECT_EQ(p.metadata().at("foo").help, "The \"foo\" time.");
  EXPECT_EQ(p.metadata().at("gh").type, "gaugehistogram");
}

TEST(PageParser, OpenMetricsStrictness) {
  std::string err;
  all("a 1\n", PageFormat::kOpenMetrics, &err);
  EXPECT_NE(err.find("does not end with # EOF"), std::string::npos) << err;
  all("a 1\n# EOF\nb 2\n", PageFormat::kOpenMetrics, &err);
  EXPECT_NE(err.find("line 3: unexpected data after # EOF"), std::string::npos) << err;
  all("a 1\n\n# EOF\n", PageFormat::kOpenMetrics, &err);
  EXPECT_NE(err.find("line 2: unexpected empty line"), std::string::npos) << err;
  all("a 1 NaN\n# EOF\n", PageFormat::kOpenMetrics, &err);
  EXPECT_NE(err.find("invalid timestamp"), std::string::npos) << err;
  all("a 1 2 junk\n# EOF\n", PageFormat::kOpenMetrics, &err);
  EXPECT_NE(err.find("unexpected text"), std::string::npos) << err;
  all("a{b=\"1\" 1\n# EOF\n", PageFormat::kOpenMetrics, &err);
  EXPECT_NE(err.find("line 1"), std::string::npos) << err;
}

TEST(PageParser, GarbageNeverCrashes) {
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes += static_cast<char>((i * 7919) % 256);
  for (auto f : {PageFormat::kText, PageFormat::kOpenMetrics}) {
    std::string err;
    all(bytes, f, &err);
    EXPECT_FALSE(err.empty());
  }
}

}  // namespace
}  // namespace llmon::scrape
