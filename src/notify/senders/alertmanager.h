// Prometheus's notifier toward Alertmanager (notifier/notifier.go): alerts
// handed to send() get the external labels (an alert's own non-empty label
// wins), wait in an in-memory queue (capacity 10000 by default; when full
// the oldest are dropped and counted), and are cut into batches of at most
// 256 that are POSTed as a JSON array of PostableAlerts to
// <url>/api/v2/alerts of every configured Alertmanager. Unlike Prometheus,
// which drops a batch that no Alertmanager took, each batch becomes one job
// per Alertmanager in the persistent DeliveryQueue, so a down Alertmanager
// gets it later, after a restart too (4xx answers are not retried).
// Counters mirror prometheus_notifications_* (as llmon_notifications_*).
// Thread-safe; send() never blocks on I/O.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "net/http_client.h"
#include "notify/alert.h"
#include "notify/delivery/delivery_queue.h"

namespace llmon::notify {

inline constexpr size_t kAlertmanagerMaxBatchSize = 256;     // notifier.go DefaultMaxBatchSize
inline constexpr size_t kAlertmanagerQueueCapacity = 10000;  // --alertmanager.notification-queue-capacity

// The request body Prometheus sends: a JSON array, one object per alert with
// keys in go-swagger's order (annotations omitted when empty, endsAt,
// startsAt as strfmt RFC3339 milliseconds in UTC, generatorURL omitted when
// empty, labels). An unset time (0) is Go's zero time, as Prometheus would
// send it. Label maps have keys in byte order.
std::string encode_postable_alerts(std::span<const Alert> alerts);

// Prometheus's relabelAlerts with no relabel rules: each external label is
// set where the alert has no non-empty value for it; the result is sorted.
LabelPairs with_external_labels(const LabelPairs& labels, const LabelPairs& external);

struct AlertmanagerEndpoint {
  std::string url;  // base URL, may carry a path prefix: http://am:9093/prefix
  net::http::ClientOptions http;
};

struct AlertmanagerOptions {
  std::vector<AlertmanagerEndpoint> alertmanagers;
  LabelPairs external_labels;
  size_t queue_capacity = kAlertmanagerQueueCapacity;
  size_t max_batch_size = kAlertmanagerMaxBatchSize;
  // How long a batch may wait in the delivery queue for an Alertmanager that
  // is down (0: the queue's max age). Prometheus resends active alerts every
  // minute anyway; older batches only replay history.
  int64_t max_age_ms = 3600 * 1000;
};

struct AlertmanagerMetrics {
  struct Endpoint {
    std::string url;             // redacted, with /api/v2/alerts: the `alertmanager` label value
    uint64_t sent_total = 0;     // alerts in batches it accepted
    uint64_t errors_total = 0;   // alerts in attempts that failed (each retry counts again)
    uint64_t dropped_total = 0;  // alerts in batches given up for it (4xx, expired, evicted)
  };
  std::vector<Endpoint> alertmanagers;  // llmon_notifications_alertmanagers_discovered = size()
  uint64_t dropped_total = 0;           // in-memory overflow plus every Endpoint's dropped_total
  uint64_t queue_length = 0;            // alerts waiting in memory
  uint64_t queue_capacity = 0;
};

class AlertmanagerNotifier {
 public:
  // Registers one delivery-queue target per Alertmanager ("alertmanager " +
  // URL) and starts the batching thread. `queue` and `log` must outlive the
  // notifier; log may be null.
  static Expected<std::unique_ptr<AlertmanagerNotifier>> create(AlertmanagerOptions opts, DeliveryQueue& queue,
                                                                base::Logger* log = nullptr);
  ~AlertmanagerNotifier();  // hands what is still in memory to the delivery queue, then stops
  AlertmanagerNotifier(const AlertmanagerNotifier&) = delete;
  AlertmanagerNotifier& operator=(const AlertmanagerNotifier&) = delete;

  void send(std::vector<Alert> alerts);
  // Moves everything in memory into the delivery queue before returning.
  void flush();
  AlertmanagerMetrics metrics() const;

  class Endpoint;  // one Alertmanager: a DeliveryTarget with its counters

 private:
  AlertmanagerNotifier(AlertmanagerOptions opts, DeliveryQueue& queue, base::Logger* log);
  void run();
  void drain_locked(std::unique_lock<std::mutex>& lk);

  const AlertmanagerOptions opts_;
  DeliveryQueue& queue_;
  base::Logger* log_;
  std::vector<std::shared_ptr<Endpoint>> endpoints_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable drained_cv_;
  std::deque<Alert> pending_;
  size_t batches_in_progress_ = 0;
  bool stopping_ = false;
  uint64_t dropped_ = 0;
  std::thread thread_;
};

}  // namespace llmon::notify
