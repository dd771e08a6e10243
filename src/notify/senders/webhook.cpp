// Alertmanager-compatible webhook payload and sender; see webhook.h.
#include "notify/senders/webhook.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "go/json.h"
#include "notify/routing/route.h"

namespace llmon::notify {
namespace {

// Pairs present with the same value in every alert (Alertmanager's
// commonLabels / commonAnnotations).
LabelPairs common_pairs(const std::vector<const Alert*>& alerts, LabelPairs Alert::*field) {
  if (alerts.empty()) return {};
  std::map<std::string, std::string> common;
  for (const auto& [k, v] : alerts.front()->*field) common[k] = v;
  for (size_t i = 1; i < alerts.size() && !common.empty(); ++i) {
    std::map<std::string_view, std::string_view> have;
    for (const auto& [k, v] : alerts[i]->*field) have[k] = v;
    for (auto it = common.begin(); it != common.end();) {
      auto h = have.find(it->first);
      // Go compares with a missing key reading as "": an empty value matches absence.
      const std::string_view other = h == have.end() ? std::string_view() : h->second;
      if (other != it->second)
        it = common.erase(it);
      else
        ++it;
    }
  }
  return {common.begin(), common.end()};
}

}  // namespace

uint64_t label_set_fingerprint(const LabelPairs& labels) {
  return labels_fingerprint(labels);
}

std::string fingerprint_hex(uint64_t fp) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fp));
  return buf;
}

std::string go_quote_meta(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (std::string_view("\\.+*?()|[]{}^$").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string render_webhook_payload(const Notification& n, const WebhookPayloadOptions& opts) {
  std::vector<const Alert*> alerts;
  for (const Alert& a : n.alerts) alerts.push_back(&a);
  uint64_t truncated = 0;
  if (opts.max_alerts != 0 && alerts.size() > opts.max_alerts) {
    truncated = alerts.size() - opts.max_alerts;
    alerts.resize(opts.max_alerts);
  }
  bool any_firing = false;
  for (const Alert* a : alerts) any_firing |= !a->resolved_at(n.created_ms);

  std::string out;
  out.reserve(512 + 512 * alerts.size());
  out += "{\"receiver\":";
  go::json::append_quoted(out, go_quote_meta(n.receiver));
  out += ",\"status\":";
  out += any_firing ? "\"firing\"" : "\"resolved\"";
  out += ",\"alerts\":[";
  for (size_t i = 0; i < alerts.size(); ++i) {
    const Alert& a = *alerts[i];
    const bool resolved = a.resolved_at(n.created_ms);
    if (i) out += ',';
    out += "{\"status\":";
    out += resolved ? "\"resolved\"" : "\"firing\"";
    out += ",\"labels\":";
    go::json::append_string_map(out, a.labels);
    out += ",\"annotations\":";
    go::json::append_string_map(out, a.annotations);
    out += ",\"startsAt\":\"";
    out += a.starts_at_ms == 0 ? std::string(go::json::kGoZeroTime) : go::json::go_time(a.starts_at_ms);
    out += "\",\"endsAt\":\"";
    out += resolved ? go::json::go_time(a.ends_at_ms) : std::string(go::json::kGoZeroTime);
    out += "\",\"generatorURL\":";
    go::json::append_quoted(out, a.generator_url);
    out += ",\"fingerprint\":\"";
    out += fingerprint_hex(label_set_fingerprint(a.labels));
    out += "\"}";
  }
  out += "],\"groupLabels\":";
  go::json::append_string_map(out, n.group_labels);
  out += ",\"commonLabels\":";
  go::json::append_string_map(out, common_pairs(alerts, &Alert::labels));
  out += ",\"commonAnnotations\":";
  go::json::append_string_map(out, common_pairs(alerts, &Alert::annotations));
  out += ",\"externalURL\":";
  go::json::append_quoted(out, n.external_url);
  out += ",\"version\":\"4\",\"groupKey\":";
  go::json::append_quoted(out, n.group_key);
  out += ",\"truncatedAlerts\":";
  out += std::to_string(truncated);
  out += "}\n";
  return out;
}

DeliveryOutcome outcome_for_http_status(int status) {
  if (status / 100 == 2) return DeliveryOutcome::kDelivered;
  if (status / 100 == 5 || status == 429) return DeliveryOutcome::kRetry;
  return DeliveryOutcome::kFailed;
}

Expected<std::unique_ptr<WebhookSender>> WebhookSender::create(WebhookConfig config) {
  auto url = net::http::parse_url(config.url);
  if (!url) return Status::error("webhook: " + url.error());
  std::unique_ptr<WebhookSender> s(new WebhookSender(std::move(config), *url));
  if (s->url_.is_tls())
    if (Status st = s->client_.prepare_tls(); !st)
      return Status::error("webhook " + s->url_.redacted() + ": " + st.message());
  return s;
}

WebhookSender::WebhookSender(WebhookConfig config, net::http::Url url)
    : config_(std::move(config)), url_(std::move(url)), client_(config_.http) {}

DeliveryResult WebhookSender::send(const Notification& n) {
  const Notification* to_send = &n;
  Notification firing_only;
  if (!config_.send_resolved) {
    firing_only = n;
    firing_only.alerts.clear();
    for (const Alert& a : n.alerts)
      if (!a.resolved_at(n.created_ms)) firing_only.alerts.push_back(a);
    if (firing_only.alerts.empty()) return {DeliveryOutcome::kDelivered, {}};
    to_send = &firing_only;
  }
  const std::string body = render_webhook_payload(*to_send, WebhookPayloadOptions{config_.max_alerts});
  auto resp = client_.post(url_, "application/json", body);
  if (!resp) return {DeliveryOutcome::kRetry, "webhook: " + resp.error()};
  const DeliveryOutcome outcome = outcome_for_http_status(resp->status);
  if (outcome == DeliveryOutcome::kDelivered) return {outcome, {}};
  std::string snippet = resp->body.substr(0, 256);
  for (char& c : snippet)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return {outcome, "webhook: POST " + url_.redacted() + ": HTTP " + std::to_string(resp->status) +
                       (resp->reason.empty() ? "" : " " + resp->reason) + (snippet.empty() ? "" : ": " + snippet)};
}

}  // namespace llmon::notify
