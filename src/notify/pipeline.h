// The notification pipeline, from the alerts the rules send:
//   rules --> AlertmanagerNotifier (--alertmanager.url, API v2 batches)
//         \-> Dispatcher (--notify.config: routes, grouping, inhibition,
//             silences) --> per-integration senders (webhook, email, exec)
// Everything that leaves the process goes through one persistent
// DeliveryQueue in <--storage.path>/notify-queue, so a notification survives
// an agent restart and an unreachable receiver (retries with backoff); the
// routing's notification log is kept there too (nflog.json), so a restart
// does not notify again what was already notified.
// Silences live in <--storage.path>/silences. The HTTP routes over it
// (Alertmanager's silence API, our delivery status) are api/notify_routes.h;
// the llmon_notifications_* metrics are app/notify_setup.h's collector.
//
// The notify config is read at start; changing receivers needs a restart
// (SIGHUP reloads rules only). Exec actions run only executables named by
// --notify.exec.allow. Thread-safe: send() from rule threads, the API from
// server threads.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "notify/alert.h"
#include "notify/config/notify_config.h"
#include "notify/delivery/delivery_queue.h"
#include "notify/routing/dispatcher.h"
#include "notify/senders/alertmanager.h"
#include "notify/senders/trace_capture.h"
#include "notify/silences/silences.h"

namespace llmon::notify {

struct PipelineOptions {
  std::string data_dir;  // notify-queue/ and silences/ go below it
  std::vector<std::string> alertmanager_urls;
  std::string config_path;              // empty: no routing of our own
  std::vector<std::string> exec_allow;  // --notify.exec.allow
  std::string external_url;             // links in notifications
  LabelPairs external_labels;           // added to alerts for Alertmanager
  TraceCaptureHook trace_capture;       // empty: trace_capture_configs are refused
};

// Builds the senders of every receiver integration of `cfg`: target name
// "<receiver>/<integration>" -> sender. Errors name the receiver and field.
Expected<std::vector<std::pair<std::string, std::shared_ptr<Sender>>>> build_senders(
    const NotifyConfig& cfg, const std::vector<std::string>& exec_allow, const base::Clock& clock, base::Logger& log,
    const TraceCaptureHook& trace_capture = {});

class Pipeline {
 public:
  // Opens the queue and silences, parses the config and builds every
  // sender. Any error: nothing is started and the error says what.
  static Expected<std::unique_ptr<Pipeline>> create(PipelineOptions opts, const base::Clock& clock, base::Logger& log);
  ~Pipeline();  // stop()
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // The rules' NotifyFunc.
  void send(std::vector<Alert> alerts);
  void stop();

  // The silences the dispatcher consults (the silence API edits them).
  Silences& silences() { return *silences_; }

  DeliveryMetrics delivery_metrics() const { return queue_->metrics(); }
  std::vector<DeliveryFailure> recent_failures() const { return queue_->recent_failures(); }
  std::optional<AlertmanagerMetrics> alertmanager_metrics() const;
  std::optional<DispatcherStats> dispatcher_stats() const;

 private:
  Pipeline(PipelineOptions opts, const base::Clock& clock, base::Logger& log);
  PipelineOptions opts_;
  const base::Clock& clock_;
  base::Logger& log_;
  std::unique_ptr<DeliveryQueue> queue_;
  std::unique_ptr<AlertmanagerNotifier> alertmanager_;
  std::unique_ptr<Silences> silences_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::thread dispatcher_thread_;
  bool stopped_ = false;
};

}  // namespace llmon::notify
