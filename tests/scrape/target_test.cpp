#include "scrape/target.h"

#include <gtest/gtest.h>

namespace llmon::scrape {
namespace {

ScrapeConfig job() {
  ScrapeConfig c;
  c.job_name = "vllm";
  c.scrape_interval_ms = 15000;
  c.scrape_timeout_ms = 10000;
  return c;
}

std::string str(const std::vector<model::Label>& ls) {
  std::string out;
  for (const auto& l : ls) out += l.name + "=" + l.value + " ";
  return out;
}

TEST(Target, PrometheusDefaultsPortAndInstance) {
  ScrapeConfig c = job();
  c.params = {{"format", {"prometheus", "x"}}};
  Relabeler none;
  TargetGroup g{{"127.0.0.1"}, {{"model", "llama"}, {"__meta_x", "y"}}, "0"};
  auto o = build_target(c, none, g, "127.0.0.1");
  ASSERT_EQ(o.kind, TargetOutcome::Kind::kActive) << o.error;
  EXPECT_EQ(str(o.target.labels), "instance=127.0.0.1:80 job=vllm model=llama ");
  EXPECT_EQ(str(o.target.discovered_labels),
            "__address__=127.0.0.1 __meta_x=y __metrics_path__=/metrics __param_format=prometheus "
            "__scheme__=http __scrape_interval__=15s __scrape_timeout__=10s job=vllm model=llama ");
  EXPECT_EQ(o.target.scrape_url, "http://127.0.0.1:80/metrics?format=prometheus&format=x");
  EXPECT_EQ(o.target.interval_ms, 15000);
}

TEST(Target, RelabellingCanDropRenameAndRetime) {
  ScrapeConfig c = job();
  RelabelConfig keep;
  keep.action = RelabelAction::kKeep;
  keep.source_labels = {"model"};
  keep.regex = "llama.*";
  RelabelConfig interval;
  interval.target_label = "__scrape_interval__";
  interval.replacement = "1m";
  RelabelConfig param;
  param.target_label = "__param_q";
  param.replacement = "a b&c";
  auto r = Relabeler::compile({keep, interval, param});
  ASSERT_TRUE(r.has_value()) << r.error();
  auto dropped = build_target(c, *r, TargetGroup{{"h:1"}, {{"model", "gpt"}}, "0"}, "h:1");
  EXPECT_EQ(dropped.kind, TargetOutcome::Kind::kDropped);
  EXPECT_FALSE(dropped.target.discovered_labels.empty());
  auto kept = build_target(c, *r, TargetGroup{{"h:1"}, {{"model", "llama3"}}, "0"}, "h:1");
  ASSERT_EQ(kept.kind, TargetOutcome::Kind::kActive) << kept.error;
  EXPECT_EQ(kept.target.interval_ms, 60000);
  EXPECT_EQ(kept.target.scrape_url, "http://h:1/metrics?q=a+b%26c");
}

TEST(Target, Errors) {
  ScrapeConfig c = job();
  RelabelConfig clear;
  clear.target_label = "__address__";
  clear.replacement = "";
  auto r = Relabeler::compile({clear});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(build_target(c, *r, {{"h:1"}, {}, "0"}, "h:1").error, "no address");
  RelabelConfig slow;
  slow.target_label = "__scrape_timeout__";
  slow.replacement = "20s";
  auto r2 = Relabeler::compile({slow});
  auto o = build_target(c, *r2, {{"h:1"}, {}, "0"}, "h:1");
  EXPECT_EQ(o.kind, TargetOutcome::Kind::kError);
  EXPECT_EQ(o.error, "scrape timeout cannot be greater than scrape interval (\"20s\" > \"15s\")");
  Relabeler none;
  c.scheme = "https";
  EXPECT_EQ(build_target(c, none, {{"[::1]"}, {}, "0"}, "[::1]").target.scrape_url, "https://[::1]:443/metrics");
}

TEST(Target, HashFollowsLabelsAndUrl) {
  Relabeler none;
  ScrapeConfig c = job();
  auto a = build_target(c, none, {{"h:1"}, {}, "0"}, "h:1");
  auto b = build_target(c, none, {{"h:1"}, {}, "1"}, "h:1");
  auto d = build_target(c, none, {{"h:1"}, {{"x", "1"}}, "0"}, "h:1");
  EXPECT_EQ(a.target.hash, b.target.hash);
  EXPECT_NE(a.target.hash, d.target.hash);
}

TEST(Target, PrometheusDurationStrings) {
  EXPECT_EQ(prometheus_duration(0), "0s");
  EXPECT_EQ(prometheus_duration(90000), "1m30s");
  EXPECT_EQ(prometheus_duration(3600000), "1h");
  EXPECT_EQ(prometheus_duration(1500), "1s500ms");
  EXPECT_EQ(prometheus_duration(86400000LL * 8), "1w1d");
}

}  // namespace
}  // namespace llmon::scrape
