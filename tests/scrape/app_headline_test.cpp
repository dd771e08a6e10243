// Headline numbers of application pages (scrape/app_headline.h), on the
// recorded pages of tests/fixtures/apps/ and on small pages whose answers
// are worked out by hand.
#include "scrape/app_headline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "support/test_paths.h"

namespace llmon::scrape {
namespace {

std::string read(const std::string& rel) {
  std::ifstream in(testing::fixture(rel));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

AppHeadline one(const std::string& body, std::string_view ct = "text/plain; version=0.0.4") {
  auto h = app_headline(nullptr, AppPage{body, ct}, 0);
  EXPECT_TRUE(h.has_value()) << h.error();
  return h ? *h : AppHeadline{};
}

TEST(BucketQuantile, InterpolatesAsHistogramQuantile) {
  const std::vector<std::pair<double, double>> b{{1, 2}, {2, 6}, {INFINITY, 10}};
  EXPECT_DOUBLE_EQ(bucket_quantile(0.5, b), 1.75);  // rank 5 in (1,2]: 1 + (5-2)/4
  EXPECT_DOUBLE_EQ(bucket_quantile(0.1, b), 0.5);   // rank 1 in (0,1]
  EXPECT_DOUBLE_EQ(bucket_quantile(0.99, b), 2);    // in +Inf: the highest finite bound
  EXPECT_TRUE(std::isnan(bucket_quantile(0.5, {{1, 0}, {INFINITY, 0}})));
  EXPECT_TRUE(std::isnan(bucket_quantile(0.5, {{1, 3}})));  // no +Inf bucket
  EXPECT_TRUE(std::isinf(bucket_quantile(1.5, b)));
}

TEST(AppHeadline, VllmPageAlone) {
  AppHeadline h = one(read("apps/vllm.prom"));
  EXPECT_EQ(h.engine, "vllm");
  EXPECT_EQ(h.kind, "serving");
  EXPECT_EQ(h.values.at("running"), 24);
  EXPECT_EQ(h.values.at("waiting"), 3);
  EXPECT_GT(h.values.at("kv_cache"), 0);
  EXPECT_LE(h.values.at("kv_cache"), 1);
  EXPECT_GT(h.values.at("ttft_p50"), 0);
  EXPECT_GE(h.values.at("ttft_p99"), h.values.at("ttft_p50"));
  EXPECT_TRUE(h.values.count("tpot_p50"));
  EXPECT_FALSE(h.values.count("gen_tps"));  // no rate from one page
  EXPECT_TRUE(h.quantiles_since_start);
  EXPECT_FALSE(h.models.empty());
  EXPECT_GT(h.samples, 50u);
}

TEST(AppHeadline, EveryRecordedEngineIsRecognised) {
  struct Case {
    const char* file;
    const char* engine;
    std::vector<const char*> keys;
  };
  const Case cases[] = {
      {"apps/sglang.prom", "sglang", {"running", "waiting", "kv_cache", "ttft_p50", "ttft_p99", "tpot_p50"}},
      {"apps/tgi.prom", "tgi", {"running", "waiting", "tpot_p50"}},
      {"apps/triton.prom", "triton", {"waiting", "kv_cache", "ttft_p50", "ttft_p99"}},
      {"apps/training.prom", "training", {"step_p50", "step_p90", "step_p99", "loss", "step"}},
  };
  for (const Case& c : cases) {
    AppHeadline h = one(read(c.file));
    EXPECT_EQ(h.engine, c.engine) << c.file;
    for (const char* k : c.keys) EXPECT_TRUE(h.values.count(k)) << c.file << " lacks " << k;
  }
  EXPECT_EQ(one(read("apps/training.prom")).kind, "training");
  // TGI has no TTFT and no KV cache: nothing is made up.
  AppHeadline tgi = one(read("apps/tgi.prom"));
  EXPECT_FALSE(tgi.values.count("ttft_p50"));
  EXPECT_FALSE(tgi.values.count("kv_cache"));
  // Triton's first-response histogram is in milliseconds.
  EXPECT_LT(one(read("apps/triton.prom")).values.at("ttft_p50"), 10);
}

TEST(AppHeadline, RatesAndQuantilesFromTheIncreaseBetweenPages) {
  const std::string first =
      "# TYPE vllm:time_to_first_token_seconds histogram\n"
      "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"0.1\"} 10\n"
      "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"1\"} 20\n"
      "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"+Inf\"} 20\n"
      "vllm:generation_tokens_total{model_name=\"m\"} 1000\n"
      "vllm:prompt_tokens_total{model_name=\"m\"} 500\n";
  const std::string second =
      "# TYPE vllm:time_to_first_token_seconds histogram\n"
      "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"0.1\"} 10\n"
      "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"1\"} 30\n"
      "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"+Inf\"} 30\n"
      "vllm:generation_tokens_total{model_name=\"m\"} 1100\n"
      "vllm:prompt_tokens_total{model_name=\"m\"} 40\n";  // restarted
  AppPage a{first, "text/plain"}, b{second, "text/plain"};
  auto h = app_headline(&a, b, 2.0);
  ASSERT_TRUE(h.has_value()) << h.error();
  EXPECT_FALSE(h->quantiles_since_start);
  // The 10 new observations all fell in (0.1, 1]: the median is halfway.
  EXPECT_DOUBLE_EQ(h->values.at("ttft_p50"), 0.55);
  EXPECT_DOUBLE_EQ(h->values.at("gen_tps"), 50);
  EXPECT_DOUBLE_EQ(h->values.at("prompt_tps"), 20);  // a reset counts from 0
  EXPECT_EQ(h->models, std::vector<std::string>{"m"});

  // No request between the pages: the quantiles over everything since start.
  auto same = app_headline(&a, a, 2.0);
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(same->quantiles_since_start);
  EXPECT_DOUBLE_EQ(same->values.at("ttft_p50"), 0.1);
  EXPECT_DOUBLE_EQ(same->values.at("gen_tps"), 0);
}

TEST(AppHeadline, OpenMetricsNaNLossAndUnknownPages) {
  const std::string om =
      "# TYPE train_loss gauge\ntrain_loss{rank=\"0\"} NaN\n# TYPE train_tokens counter\n"
      "train_tokens_total 10\n# EOF\n";
  AppHeadline h = one(om, "application/openmetrics-text; version=1.0.0");
  EXPECT_EQ(h.engine, "training");
  ASSERT_TRUE(h.values.count("loss"));
  EXPECT_TRUE(std::isnan(h.values.at("loss")));  // a NaN loss is reported, not dropped
  AppHeadline other = one(read("apps/openmetrics.txt"), "application/openmetrics-text; version=1.0.0");
  EXPECT_EQ(other.engine, "");
  EXPECT_EQ(other.kind, "");
  EXPECT_GT(other.samples, 0u);
}

TEST(AppHeadline, ABrokenPageIsAnErrorWithItsLine) {
  auto h = app_headline(nullptr, AppPage{"ok 1\nvllm:x{a=\"b\" 2\n", "text/plain"}, 0);
  ASSERT_FALSE(h.has_value());
  EXPECT_NE(h.error().find("line 2"), std::string::npos) << h.error();
  // A broken first page only loses the rates.
  AppPage bad{"garbage{\n", "text/plain"}, good{"vllm:num_requests_running 2\n", "text/plain"};
  auto g = app_headline(&bad, good, 1);
  ASSERT_TRUE(g.has_value()) << g.error();
  EXPECT_EQ(g->values.at("running"), 2);
}

}  // namespace
}  // namespace llmon::scrape
