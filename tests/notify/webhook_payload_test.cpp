// The webhook payload (Alertmanager version 4) on literal bytes, and the
// label fingerprint it carries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "notify/senders/webhook.h"

namespace llmon::notify {
namespace {

TEST(WebhookFingerprint, MatchesPrometheusCommonModelVectors) {
  // prometheus/common model/signature_test.go and fingerprinting benchmarks.
  EXPECT_EQ(label_set_fingerprint({}), 14695981039346656037ull);
  EXPECT_EQ(label_set_fingerprint({{"name", "garland, briggs"}, {"fear", "love is not enough"}}),
            5799056148416392346ull);
  EXPECT_EQ(label_set_fingerprint({{"first-label", "first-label-value"}}), 5146282821936882169ull);
  EXPECT_EQ(label_set_fingerprint({{"first-label", "first-label-value"}, {"second-label", "second-label-value"}}),
            3195800080984914717ull);
  EXPECT_EQ(label_set_fingerprint({{"third-label", "third-label-value"},
                                   {"first-label", "first-label-value"},
                                   {"second-label", "second-label-value"}}),
            13843036195897128121ull);
  EXPECT_EQ(fingerprint_hex(5799056148416392346ull), "507a62d79ee76c9a");
  EXPECT_EQ(fingerprint_hex(1), "0000000000000001");
}

TEST(WebhookFingerprint, SeparatorKeepsNameValueBoundaries) {
  EXPECT_NE(label_set_fingerprint({{"a", "bb"}, {"b", "c"}}), label_set_fingerprint({{"a", "b"}, {"bb", "c"}}));
}

TEST(WebhookPayload, QuoteMetaLikeGoRegexp) {
  EXPECT_EQ(go_quote_meta("team-x"), "team-x");
  EXPECT_EQ(go_quote_meta("web.hook"), "web\\.hook");
  EXPECT_EQ(go_quote_meta("a+b*c?(d)|[e]{f}^$\\"), "a\\+b\\*c\\?\\(d\\)\\|\\[e\\]\\{f\\}\\^\\$\\\\");
}

Notification two_alerts() {
  Notification n;
  n.receiver = "ops.hook";
  n.group_key = "{}:{alertname=\"GpuHot\"}";
  n.group_labels = {{"alertname", "GpuHot"}};
  n.created_ms = 1714564900000;
  n.external_url = "http://gpu01:9090";
  Alert a;
  a.labels = {{"alertname", "GpuHot"}, {"gpu", "0"}, {"severity", "page"}};
  a.annotations = {{"runbook", "r"}, {"summary", "GPU 0 hot"}};
  a.starts_at_ms = 1714564800000;
  a.ends_at_ms = 1714565040000;  // still valid at created_ms: firing
  a.generator_url = "http://gpu01:9090/graph?g0.expr=x&g0.tab=1";
  Alert b = a;
  b.labels = {{"alertname", "GpuHot"}, {"gpu", "1"}, {"severity", "page"}};
  b.annotations = {{"runbook", "r"}, {"summary", "GPU 1 hot"}};
  b.starts_at_ms = 1714564800250;
  b.ends_at_ms = 1714564890500;  // before created_ms: resolved
  n.alerts = {a, b};
  return n;
}

TEST(WebhookPayload, ExactBytesFiringGroup) {
  const Notification n = two_alerts();
  const std::string fp0 = fingerprint_hex(label_set_fingerprint(n.alerts[0].labels));
  const std::string fp1 = fingerprint_hex(label_set_fingerprint(n.alerts[1].labels));
  EXPECT_EQ(render_webhook_payload(n),
            "{\"receiver\":\"ops\\\\.hook\",\"status\":\"firing\",\"alerts\":["
            "{\"status\":\"firing\",\"labels\":{\"alertname\":\"GpuHot\",\"gpu\":\"0\",\"severity\":\"page\"},"
            "\"annotations\":{\"runbook\":\"r\",\"summary\":\"GPU 0 hot\"},"
            "\"startsAt\":\"2024-05-01T12:00:00Z\",\"endsAt\":\"0001-01-01T00:00:00Z\","
            "\"generatorURL\":\"http://gpu01:9090/graph?g0.expr=x\\u0026g0.tab=1\",\"fingerprint\":\"" +
                fp0 +
                "\"},"
                "{\"status\":\"resolved\",\"labels\":{\"alertname\":\"GpuHot\",\"gpu\":\"1\",\"severity\":\"page\"},"
                "\"annotations\":{\"runbook\":\"r\",\"summary\":\"GPU 1 hot\"},"
                "\"startsAt\":\"2024-05-01T12:00:00.25Z\",\"endsAt\":\"2024-05-01T12:01:30.5Z\","
                "\"generatorURL\":\"http://gpu01:9090/graph?g0.expr=x\\u0026g0.tab=1\",\"fingerprint\":\"" +
                fp1 +
                "\"}],"
                "\"groupLabels\":{\"alertname\":\"GpuHot\"},"
                "\"commonLabels\":{\"alertname\":\"GpuHot\",\"severity\":\"page\"},"
                "\"commonAnnotations\":{\"runbook\":\"r\"},"
                "\"externalURL\":\"http://gpu01:9090\",\"version\":\"4\","
                "\"groupKey\":\"{}:{alertname=\\\"GpuHot\\\"}\",\"truncatedAlerts\":0}\n");
  EXPECT_NE(fp0, fp1);
}

TEST(WebhookPayload, AllResolvedAndEmptyMaps) {
  Notification n = two_alerts();
  n.alerts[0].ends_at_ms = n.created_ms;  // ends exactly now: resolved
  n.group_labels.clear();
  n.alerts[0].annotations.clear();
  auto j = nlohmann::json::parse(render_webhook_payload(n));
  EXPECT_EQ(j["status"], "resolved");
  EXPECT_EQ(j["alerts"][0]["status"], "resolved");
  EXPECT_EQ(j["alerts"][0]["endsAt"], "2024-05-01T12:01:40Z");
  EXPECT_EQ(j["alerts"][0]["annotations"], nlohmann::json::object());
  EXPECT_EQ(j["groupLabels"], nlohmann::json::object());
  EXPECT_EQ(j["commonAnnotations"], nlohmann::json::object());
}

TEST(WebhookPayload, MaxAlertsTruncatesBeforeComputingCommonAndStatus) {
  Notification n = two_alerts();
  std::swap(n.alerts[0], n.alerts[1]);  // the resolved one first
  auto j = nlohmann::json::parse(render_webhook_payload(n, {1}));
  EXPECT_EQ(j["truncatedAlerts"], 1);
  ASSERT_EQ(j["alerts"].size(), 1u);
  EXPECT_EQ(j["alerts"][0]["labels"]["gpu"], "1");
  EXPECT_EQ(j["status"], "resolved");  // only the kept alert counts
  EXPECT_EQ(j["commonLabels"]["gpu"], "1");
  EXPECT_EQ(j["commonAnnotations"]["summary"], "GPU 1 hot");
  // max_alerts at or above the count truncates nothing.
  EXPECT_EQ(nlohmann::json::parse(render_webhook_payload(n, {2}))["truncatedAlerts"], 0);
}

TEST(WebhookPayload, NoAlerts) {
  Notification n;
  n.receiver = "r";
  EXPECT_EQ(render_webhook_payload(n),
            "{\"receiver\":\"r\",\"status\":\"resolved\",\"alerts\":[],\"groupLabels\":{},\"commonLabels\":{},"
            "\"commonAnnotations\":{},\"externalURL\":\"\",\"version\":\"4\",\"groupKey\":\"\","
            "\"truncatedAlerts\":0}\n");
}

TEST(WebhookPayload, StatusMapping) {
  EXPECT_EQ(outcome_for_http_status(200), DeliveryOutcome::kDelivered);
  EXPECT_EQ(outcome_for_http_status(204), DeliveryOutcome::kDelivered);
  EXPECT_EQ(outcome_for_http_status(500), DeliveryOutcome::kRetry);
  EXPECT_EQ(outcome_for_http_status(503), DeliveryOutcome::kRetry);
  EXPECT_EQ(outcome_for_http_status(429), DeliveryOutcome::kRetry);
  EXPECT_EQ(outcome_for_http_status(400), DeliveryOutcome::kFailed);
  EXPECT_EQ(outcome_for_http_status(404), DeliveryOutcome::kFailed);
  EXPECT_EQ(outcome_for_http_status(301), DeliveryOutcome::kFailed);
}

}  // namespace
}  // namespace llmon::notify
