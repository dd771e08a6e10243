// WebhookSender against in-test receivers: what it posts, and how each kind
// of answer (or non-answer) maps to delivered / retry / failed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "net/base64.h"
#include "notify/delivery_receiver.h"
#include "notify/senders/webhook.h"

namespace llmon::notify {
namespace {

using testing::Receiver;
using testing::Reply;

Notification sample(int64_t created_ms = 1714564900000) {
  Notification n;
  n.receiver = "team";
  n.group_key = "{}:{alertname=\"A\"}";
  n.group_labels = {{"alertname", "A"}};
  n.created_ms = created_ms;
  Alert firing;
  firing.labels = {{"alertname", "A"}, {"i", "1"}};
  firing.starts_at_ms = 1714564800000;
  firing.ends_at_ms = created_ms + 60000;
  Alert resolved = firing;
  resolved.labels = {{"alertname", "A"}, {"i", "2"}};
  resolved.ends_at_ms = created_ms - 1000;
  n.alerts = {firing, resolved};
  return n;
}

std::unique_ptr<WebhookSender> sender_for(const std::string& url, int timeout_ms = 3000, bool send_resolved = true,
                                          uint64_t max_alerts = 0) {
  WebhookConfig cfg;
  cfg.url = url;
  cfg.http.timeout_ms = timeout_ms;
  cfg.http.connect_timeout_ms = 2000;
  cfg.send_resolved = send_resolved;
  cfg.max_alerts = max_alerts;
  auto s = WebhookSender::create(cfg);
  EXPECT_TRUE(s) << s.error();
  return s ? std::move(*s) : nullptr;
}

TEST(WebhookSender, PostsThePayload) {
  Receiver r;
  auto s = sender_for(r.url("/hook?x=1"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind(), "webhook");
  const Notification n = sample();
  const DeliveryResult res = s->send(n);
  EXPECT_EQ(res.outcome, DeliveryOutcome::kDelivered) << res.error;
  EXPECT_EQ(res.error, "");
  const auto reqs = r.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/hook?x=1");
  EXPECT_EQ(reqs[0].header("content-type"), "application/json");
  EXPECT_EQ(reqs[0].body, render_webhook_payload(n));
}

TEST(WebhookSender, OutcomesByAnswer) {
  struct Case {
    Reply reply;
    DeliveryOutcome want;
    const char* error_has;
  } cases[] = {
      {{Reply::Action::kRespond, 200, "ok"}, DeliveryOutcome::kDelivered, ""},
      {{Reply::Action::kRespond, 202, "", false}, DeliveryOutcome::kDelivered, ""},
      {{Reply::Action::kRespond, 500, "db down"}, DeliveryOutcome::kRetry, "HTTP 500 Status: db down"},
      {{Reply::Action::kRespond, 503, "later", true}, DeliveryOutcome::kRetry, "HTTP 503"},
      {{Reply::Action::kRespond, 429, "slow down"}, DeliveryOutcome::kRetry, "HTTP 429"},
      {{Reply::Action::kRespond, 400, "bad json"}, DeliveryOutcome::kFailed, "HTTP 400 Status: bad json"},
      {{Reply::Action::kRespond, 404, ""}, DeliveryOutcome::kFailed, "HTTP 404"},
      {{Reply::Action::kHang}, DeliveryOutcome::kRetry, "timed out"},
      {{Reply::Action::kClose}, DeliveryOutcome::kRetry, "closed before any response"},
  };
  for (const Case& c : cases) {
    Receiver r([&](const testing::ReceivedRequest&, int) { return c.reply; });
    auto s = sender_for(r.url("/hook"), 400);
    ASSERT_TRUE(s);
    const DeliveryResult res = s->send(sample());
    EXPECT_EQ(res.outcome, c.want) << c.reply.status << " " << res.error;
    EXPECT_NE(res.error.find(c.error_has), std::string::npos) << res.error;
    if (c.want != DeliveryOutcome::kDelivered) {
      EXPECT_NE(res.error.find("127.0.0.1:" + std::to_string(r.port())), std::string::npos) << res.error;
    }
    EXPECT_EQ(r.count(), 1u);
  }
}

TEST(WebhookSender, NobodyListeningIsRetried) {
  int port;
  {
    Receiver gone;
    port = gone.port();
  }
  auto s = sender_for("http://127.0.0.1:" + std::to_string(port) + "/hook");
  const DeliveryResult res = s->send(sample());
  EXPECT_EQ(res.outcome, DeliveryOutcome::kRetry);
  EXPECT_NE(res.error.find("Connection refused"), std::string::npos) << res.error;
}

TEST(WebhookSender, SendResolvedFalseLeavesResolvedOut) {
  Receiver r;
  auto s = sender_for(r.url("/"), 3000, /*send_resolved=*/false);
  Notification n = sample();
  ASSERT_EQ(s->send(n).outcome, DeliveryOutcome::kDelivered);
  ASSERT_TRUE(r.wait_for(1));
  auto j = nlohmann::json::parse(r.requests()[0].body);
  ASSERT_EQ(j["alerts"].size(), 1u);
  EXPECT_EQ(j["alerts"][0]["labels"]["i"], "1");
  // Only resolved alerts: nothing is sent, and that counts as delivered.
  n.alerts.erase(n.alerts.begin());
  EXPECT_EQ(s->send(n).outcome, DeliveryOutcome::kDelivered);
  EXPECT_EQ(r.count(), 1u);
}

TEST(WebhookSender, MaxAlertsAndBadConfig) {
  Receiver r;
  auto s = sender_for(r.url("/"), 3000, true, 1);
  ASSERT_EQ(s->send(sample()).outcome, DeliveryOutcome::kDelivered);
  auto j = nlohmann::json::parse(r.requests()[0].body);
  EXPECT_EQ(j["truncatedAlerts"], 1);
  EXPECT_EQ(j["alerts"].size(), 1u);

  WebhookConfig bad;
  bad.url = "mailto:x@y";
  auto e = WebhookSender::create(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("webhook: URL"), std::string::npos) << e.error();
  bad.url = "https://h/";
  bad.http.tls_ca_file = "/nonexistent.pem";
  e = WebhookSender::create(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("/nonexistent.pem"), std::string::npos) << e.error();
}

TEST(WebhookSender, BasicAuthFromConfig) {
  Receiver r;
  WebhookConfig cfg;
  cfg.url = r.url("/");
  cfg.http.basic_auth_username = "alert";
  cfg.http.basic_auth_password = "manager";
  auto s = WebhookSender::create(cfg);
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ((*s)->send(sample()).outcome, DeliveryOutcome::kDelivered);
  EXPECT_EQ(r.requests()[0].header("authorization"), "Basic " + net::base64_encode("alert:manager"));
}

}  // namespace
}  // namespace llmon::notify
