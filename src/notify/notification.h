// A notification: one group of alerts for one receiver, as the router
// (dispatcher) hands it to a sender. The webhook payload (Alertmanager
// version 4), the email and the exec action are all rendered from this.
// Senders are the seam between routing (route.h, dispatcher.h) and delivery
// (delivery_queue.h and the senders): each sender turns a Notification into
// one attempt and says whether to retry.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "notify/alert.h"

namespace llmon::notify {

struct Notification {
  std::string receiver;     // receiver name from the routing config
  std::string group_key;    // Alertmanager's groupKey, e.g. `{}:{alertname="X"}`
  LabelPairs group_labels;  // the labels named by group_by, sorted
  std::vector<Alert> alerts;
  int64_t created_ms = 0;   // when the dispatcher flushed the group
  std::string external_url; // link to llmon's UI/API (externalURL in payloads)

  // "firing" when any alert is still firing at created_ms, else "resolved".
  std::string_view status() const {
    for (const auto& a : alerts)
      if (!a.resolved_at(created_ms)) return "firing";
    return "resolved";
  }
};

enum class DeliveryOutcome {
  kDelivered,  // done
  kRetry,      // transient: network error, timeout, HTTP 5xx or 429; retry with backoff
  kFailed,     // permanent: HTTP 4xx, rejected address, bad config; never retried
};

struct DeliveryResult {
  DeliveryOutcome outcome = DeliveryOutcome::kDelivered;
  std::string error;  // empty when delivered; otherwise says what and where
};

// One delivery target (a webhook URL, an SMTP destination, an exec action).
// send() must be safe to call from a worker thread and must time out on its
// own; it never throws.
class Sender {
 public:
  virtual ~Sender() = default;
  virtual std::string_view kind() const = 0;  // "webhook", "email", "exec"
  virtual DeliveryResult send(const Notification& n) = 0;
};

}  // namespace llmon::notify
