#include "scrape/scrape_config.h"

#include <gtest/gtest.h>

namespace llmon::scrape {
namespace {

ScrapeFile parse_ok(const std::string& yaml) {
  auto f = parse_scrape_config(yaml, "s.yml");
  EXPECT_TRUE(f.has_value()) << f.error();
  return f.has_value() ? *f : ScrapeFile{};
}

std::string parse_err(const std::string& yaml) {
  auto f = parse_scrape_config(yaml, "s.yml");
  EXPECT_FALSE(f.has_value());
  return f.has_value() ? "" : f.error();
}

TEST(ScrapeConfig, DefaultsComeFromPrometheusAndGlobal) {
  auto f = parse_ok(R"(
global:
  scrape_interval: 15s
scrape_configs:
  - job_name: vllm
    static_configs:
      - targets: ["127.0.0.1:8000"]
        labels: {model: llama}
  - job_name: slow
    scrape_interval: 5s
)");
  ASSERT_EQ(f.scrape_configs.size(), 2u);
  const auto& a = f.scrape_configs[0];
  EXPECT_EQ(a.job_name, "vllm");
  EXPECT_EQ(a.scrape_interval_ms, 15000);
  EXPECT_EQ(a.scrape_timeout_ms, 10000);
  EXPECT_EQ(a.metrics_path, "/metrics");
  EXPECT_EQ(a.scheme, "http");
  EXPECT_FALSE(a.honor_labels);
  EXPECT_TRUE(a.honor_timestamps);
  ASSERT_EQ(a.static_configs.size(), 1u);
  EXPECT_EQ(a.static_configs[0].targets, std::vector<std::string>{"127.0.0.1:8000"});
  EXPECT_EQ(a.static_configs[0].labels, (std::vector<model::Label>{{"model", "llama"}}));
  EXPECT_EQ(a.origin, "s.yml:5");
  // An unset timeout is the global one, cut to the job's interval.
  EXPECT_EQ(f.scrape_configs[1].scrape_timeout_ms, 5000);
}

TEST(ScrapeConfig, EverySupportedFieldIsRead) {
  auto f = parse_ok(R"(
scrape_configs:
  - job_name: all
    scrape_interval: 1m30s
    scrape_timeout: 20s
    metrics_path: /m
    scheme: https
    params: {module: [a, b]}
    honor_labels: true
    honor_timestamps: false
    authorization: {credentials_file: /tok}
    tls_config: {ca_file: /ca.pem, cert_file: /c.pem, key_file: /k.pem, server_name: x, insecure_skip_verify: true}
    file_sd_configs: [{files: [/etc/t/*.json], refresh_interval: 1m}]
    relabel_configs:
      - {source_labels: [__address__], regex: "(.*):.*", target_label: host, replacement: "$1"}
    metric_relabel_configs:
      - {action: labeldrop, regex: pid}
    sample_limit: 100
    target_limit: 3
    label_limit: 30
    label_name_length_limit: 40
    label_value_length_limit: 200
    body_size_limit: 10MB
    follow_redirects: false
    enable_http2: false
)");
  const auto& c = f.scrape_configs.at(0);
  EXPECT_EQ(c.scrape_interval_ms, 90000);
  EXPECT_EQ(c.scrape_timeout_ms, 20000);
  EXPECT_EQ(c.metrics_path, "/m");
  EXPECT_EQ(c.scheme, "https");
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.params[0].second, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(c.honor_labels);
  EXPECT_FALSE(c.honor_timestamps);
  ASSERT_TRUE(c.authorization.has_value());
  EXPECT_EQ(c.authorization->type, "Bearer");
  EXPECT_EQ(c.authorization->credentials_file, "/tok");
  EXPECT_TRUE(c.tls.insecure_skip_verify);
  EXPECT_EQ(c.tls.key_file, "/k.pem");
  ASSERT_EQ(c.file_sd_configs.size(), 1u);
  EXPECT_EQ(c.file_sd_configs[0].refresh_interval_ms, 60000);
  ASSERT_EQ(c.relabel_configs.size(), 1u);
  EXPECT_EQ(c.relabel_configs[0].target_label, "host");
  ASSERT_EQ(c.metric_relabel_configs.size(), 1u);
  EXPECT_EQ(c.metric_relabel_configs[0].action, RelabelAction::kLabelDrop);
  EXPECT_EQ(c.sample_limit, 100u);
  EXPECT_EQ(c.target_limit, 3u);
  EXPECT_EQ(c.label_limit, 30u);
  EXPECT_EQ(c.body_size_limit, 10u << 20);
}

TEST(ScrapeConfig, BearerTokenBecomesAuthorization) {
  auto f = parse_ok("scrape_configs:\n  - job_name: a\n    bearer_token: abc\n");
  ASSERT_TRUE(f.scrape_configs[0].authorization.has_value());
  EXPECT_EQ(f.scrape_configs[0].authorization->credentials, "abc");
}

TEST(ScrapeConfig, UnknownAndUnsupportedKeysAreRefusedWithTheirPlace) {
  EXPECT_EQ(parse_err("scrape_configs:\n  - job_name: a\n    proxy_url: http://p\n"),
            "s.yml:3:5: scrape_configs[0] (job \"a\") \"proxy_url\" is not supported by llmon's scraper");
  EXPECT_EQ(parse_err("scrape_configs:\n  - job_name: a\n    scrap_interval: 1s\n"),
            "s.yml:3:5: scrape_configs[0] (job \"a\") scrape config: unknown field \"scrap_interval\"");
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    kubernetes_sd_configs: [{role: pod}]\n")
                .find("s.yml:3:5: scrape_configs[0] (job \"a\") \"kubernetes_sd_configs\" is not supported"),
            std::string::npos);
  EXPECT_NE(parse_err("rule_files: [a.yml]\n").find("s.yml:1:1: \"rule_files\" is not read from the scrape config"),
            std::string::npos);
  EXPECT_EQ(
      parse_err("scrape_configs:\n  - job_name: a\n    static_configs:\n      - targets: [a:1]\n        lables: {}\n"),
      "s.yml:5:9: scrape_configs[0] (job \"a\") static_configs[0]: unknown field \"lables\"");
  EXPECT_EQ(parse_err("global:\n  foo: 1\n"), "s.yml:2:3: global: unknown field \"foo\"");
}

TEST(ScrapeConfig, PrometheusValidationErrors) {
  EXPECT_NE(parse_err("scrape_configs:\n  - scrape_interval: 1s\n").find("job_name is empty"), std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n  - job_name: a\n")
                .find("s.yml:3:5: scrape_configs[1] (job \"a\") found multiple scrape configs with job name \"a\""),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    scrape_interval: 5s\n    scrape_timeout: 10s\n")
                .find("s.yml:4:21: scrape_configs[0] (job \"a\") scrape timeout greater than scrape interval"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    static_configs: [{targets: [\"http://x:1\"]}]\n")
                .find("\"http://x:1\" is not a valid hostname"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    basic_auth: {username: u}\n    bearer_token: t\n")
                .find("at most one of basic_auth, authorization and bearer_token"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    authorization: {type: Basic}\n")
                .find("use \"basic_auth\" instead"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    scheme: ftp\n").find("expected http or https"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    file_sd_configs: [{files: [/a/*/b.json]}]\n")
                .find("is not valid for file discovery"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    static_configs: [{targets: [a:1], labels: {0x: v}}]\n")
                .find("\"0x\" is not a valid label name"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    follow_redirects: true\n").find("not supported"),
            std::string::npos);
}

// promtool check config (Prometheus 2.42) refuses both: a field written out
// counts as set even when empty or equal to the default.
TEST(ScrapeConfig, FieldsARelabelActionForbidsAreRefusedWhenWrittenAtAll) {
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    metric_relabel_configs:\n"
                      "      - {action: labeldrop, source_labels: [], regex: x}\n")
                .find("labeldrop action requires only 'regex', and no other fields"),
            std::string::npos);
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    metric_relabel_configs:\n"
                      "      - {action: keepequal, source_labels: [a], target_label: b, regex: (.*)}\n")
                .find("keepequal action requires only 'source_labels' and `target_label`, and no other fields"),
            std::string::npos);
}

TEST(ScrapeConfig, RelabelRulesAreCheckedWhereTheyAre) {
  const std::string e = parse_err(
      "scrape_configs:\n  - job_name: a\n    relabel_configs:\n      - action: keep\n        regex: a\n"
      "      - action: hashmod\n        target_label: t\n");
  EXPECT_NE(e.find("s.yml:6:9: scrape_configs[0] (job \"a\") relabel_configs[1]: "), std::string::npos) << e;
  EXPECT_NE(e.find("modulus"), std::string::npos) << e;
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: a\n    relabel_configs: [{action: explode}]\n")
                .find("unknown relabel action \"explode\""),
            std::string::npos);
  EXPECT_NE(
      parse_err("scrape_configs:\n  - job_name: a\n    relabel_configs: [{regex: \"(\"}]\n").find("relabel_configs[0]"),
      std::string::npos);
}

TEST(ScrapeConfig, YamlSyntaxErrorsNameTheLine) {
  EXPECT_NE(parse_err("scrape_configs:\n  - job_name: [\n").find("s.yml:"), std::string::npos);
  EXPECT_TRUE(parse_scrape_config("", "s.yml").has_value());
}

TEST(ScrapeConfig, Base2Bytes) {
  EXPECT_EQ(*parse_base2_bytes("0"), 0u);
  EXPECT_EQ(*parse_base2_bytes("512"), 512u);
  EXPECT_EQ(*parse_base2_bytes("1KB"), 1024u);
  EXPECT_EQ(*parse_base2_bytes("3MiB"), 3u << 20);
  EXPECT_EQ(*parse_base2_bytes("2GB"), 2ull << 30);
  EXPECT_FALSE(parse_base2_bytes("MB").has_value());
  EXPECT_FALSE(parse_base2_bytes("5XB").has_value());
  EXPECT_FALSE(parse_base2_bytes("99999999999EB").has_value());
}

}  // namespace
}  // namespace llmon::scrape
