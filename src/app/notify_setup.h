// The agent's notification pipeline, from the alerts the rules send:
//   rules --> AlertmanagerNotifier (--alertmanager.url, API v2 batches)
//         \-> Dispatcher (--notify.config: routes, grouping, inhibition,
//             silences) --> per-integration senders (webhook, email, exec)
// Everything that leaves the process goes through one persistent
// DeliveryQueue in <--storage.path>/notify-queue, so a notification survives
// an agent restart and an unreachable receiver (retries with backoff); the
// routing's notification log is kept there too (nflog.json), so a restart
// does not notify again what was already notified.
// Silences live in <--storage.path>/silences. Also serves Alertmanager's
// silence API (/api/v2/silences, /api/v2/silence/<id>), our delivery status
// (/api/v1/notifications) and llmon_notifications_* metrics.
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
#include "collector/collector.h"
#include "config/settings.h"
#include "http/server.h"
#include "notify/alert.h"
#include "notify/alertmanager.h"
#include "notify/delivery_queue.h"
#include "notify/dispatcher.h"
#include "notify/notify_config.h"
#include "notify/silences.h"

namespace llmon::app {

struct NotifySetupOptions {
  std::string data_dir;  // notify-queue/ and silences/ go below it
  std::vector<std::string> alertmanager_urls;
  std::string config_path;                   // empty: no routing of our own
  std::vector<std::string> exec_allow;       // --notify.exec.allow
  std::string external_url;                  // links in notifications
  notify::LabelPairs external_labels;        // added to alerts for Alertmanager
};

NotifySetupOptions notify_setup_options(const config::Settings& s, std::string external_url,
                                        notify::LabelPairs external_labels);

// Builds the senders of every receiver integration of `cfg`: target name
// "<receiver>/<integration>" -> sender. Errors name the receiver and field.
Expected<std::vector<std::pair<std::string, std::shared_ptr<notify::Sender>>>> build_senders(
    const notify::NotifyConfig& cfg, const std::vector<std::string>& exec_allow, const base::Clock& clock,
    base::Logger& log);

class Notifications {
 public:
  // Opens the queue and silences, parses the config and builds every
  // sender. Any error: nothing is started and the error says what.
  static Expected<std::unique_ptr<Notifications>> create(NotifySetupOptions opts, const base::Clock& clock,
                                                         base::Logger& log);
  ~Notifications();  // stop()
  Notifications(const Notifications&) = delete;
  Notifications& operator=(const Notifications&) = delete;

  // The rules' NotifyFunc.
  void send(std::vector<notify::Alert> alerts);
  void stop();

  Status register_routes(http::Server& server);
  std::unique_ptr<collector::Collector> make_collector() const;

  notify::DeliveryMetrics delivery_metrics() const { return queue_->metrics(); }
  std::vector<notify::DeliveryFailure> recent_failures() const { return queue_->recent_failures(); }
  std::optional<notify::AlertmanagerMetrics> alertmanager_metrics() const;
  std::optional<notify::DispatcherStats> dispatcher_stats() const;

 private:
  Notifications(NotifySetupOptions opts, const base::Clock& clock, base::Logger& log);
  NotifySetupOptions opts_;
  const base::Clock& clock_;
  base::Logger& log_;
  std::unique_ptr<notify::DeliveryQueue> queue_;
  std::unique_ptr<notify::AlertmanagerNotifier> alertmanager_;
  std::unique_ptr<notify::Silences> silences_;
  std::unique_ptr<notify::Dispatcher> dispatcher_;
  std::thread dispatcher_thread_;
  bool stopped_ = false;
};

}  // namespace llmon::app
