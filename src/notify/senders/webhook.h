// The webhook receiver: POSTs a Notification as Alertmanager's webhook
// payload, version 4 (what `prometheus-alertmanager` 0.25 sends, see
// notify/webhook/webhook.go and template/template.go there), so anything
// written for Alertmanager webhooks takes llmon's unchanged. The renderer
// is a pure function; WebhookSender does one HTTP attempt per send() and
// maps the result: 2xx delivered; 5xx, 429, network errors and timeouts
// kRetry; any other status kFailed. Retrying is the delivery queue's job.
// WebhookSender is thread-safe (the HTTP client is).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "net/http_client.h"
#include "notify/notification.h"

namespace llmon::notify {

// Prometheus model.LabelSet.Fingerprint(): FNV-1a 64 over the label names in
// byte order, each name and value followed by a 0xff byte. Empty set: the
// FNV offset basis.
uint64_t label_set_fingerprint(const LabelPairs& labels);
// Formatted like model.Fingerprint.String(): 16 lower-case hex digits.
std::string fingerprint_hex(uint64_t fp);

// Go regexp.QuoteMeta: a backslash before each of \.+*?()|[]{}^$ (Alertmanager
// puts the receiver name through it before it reaches the payload).
std::string go_quote_meta(std::string_view s);

struct WebhookPayloadOptions {
  uint64_t max_alerts = 0;  // 0: all; otherwise the first max_alerts, rest counted in truncatedAlerts
};

// The exact body Alertmanager 0.25 posts for this notification, trailing
// newline included. Per alert: status from Alert::resolved_at(created_ms);
// a firing alert's endsAt is Go's zero time (Alertmanager clears it when it
// flushes a group); times in UTC as Go's time.Time JSON. Keys in Go's order:
// receiver, status, alerts, groupLabels, commonLabels, commonAnnotations,
// externalURL, version, groupKey, truncatedAlerts. The top-level status,
// commonLabels and commonAnnotations are computed over the alerts kept after
// truncation, as Alertmanager does.
std::string render_webhook_payload(const Notification& n, const WebhookPayloadOptions& opts = {});

// 2xx kDelivered; 5xx and 429 kRetry; everything else kFailed.
DeliveryOutcome outcome_for_http_status(int status);

struct WebhookConfig {
  std::string url;
  net::http::ClientOptions http;  // timeouts, TLS, basic auth / bearer token
  uint64_t max_alerts = 0;
  bool send_resolved = true;  // false: resolved alerts are left out; nothing is sent if none is firing
};

class WebhookSender final : public Sender {
 public:
  // Checks the URL (and the TLS CA file, for https) now.
  static Expected<std::unique_ptr<WebhookSender>> create(WebhookConfig config);
  std::string_view kind() const override { return "webhook"; }
  DeliveryResult send(const Notification& n) override;
  const net::http::Url& url() const { return url_; }

 private:
  WebhookSender(WebhookConfig config, net::http::Url url);
  WebhookConfig config_;
  net::http::Url url_;
  net::http::Client client_;
};

}  // namespace llmon::notify
