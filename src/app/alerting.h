// The agent's alerting: the rule manager over the store (rules/manager.h)
// fed by rule_loading.h, reloads (SIGHUP, POST /-/reload) that keep the old
// rules on any error, the rule/alert API (rules_api.h), and the rule
// manager's counters as a collector (llmon_rule_*). Alerts the rules send go
// to a NotifyFunc the caller supplies (notify_setup.h: Alertmanager and
// llmon's own routing).
//
// Thread-safety: reload() may run on any thread (serialised internally);
// snapshot() concurrently with evaluations.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/rule_loading.h"
#include "base/clock.h"
#include "base/log.h"
#include "collector/collector.h"
#include "config/settings.h"
#include "http/server.h"
#include "rules/manager.h"

namespace llmon::app {

struct AlertingOptions {
  RuleSources sources;
  rules::ManagerOptions manager;  // group options: storage, engine, clock, logger, notify, ...
};

// Reads the --rules.* and --web.external-url flags (storage, engine, clock,
// logger and notify are left for the caller). `port` is the HTTP port for
// the default external URL. Errors name the flag.
Expected<AlertingOptions> alerting_options(const config::Settings& s, int port);
// Parses "a=b,c=d" (--rules.external-labels); errors name the bad item.
Expected<std::map<std::string, std::string>> parse_label_list(std::string_view text);

struct ReloadStats {
  bool last_successful = true;
  int64_t last_success_ms = 0;
  uint64_t reloads_total = 0;
  uint64_t failures_total = 0;
  std::string last_error;
};

class Alerting {
 public:
  Alerting(AlertingOptions options, base::Logger& log);
  ~Alerting();  // stop()
  Alerting(const Alerting&) = delete;
  Alerting& operator=(const Alerting&) = delete;

  // Loads the rule sources into the manager; on error the running rules stay
  // and the error (every file's errors, one per line) is returned and logged.
  Status reload();
  void start();
  void stop();

  std::vector<rules::GroupSnapshot> snapshot() const { return manager_.snapshot(); }
  ReloadStats reload_stats() const;
  const rules::Manager& manager() const { return manager_; }

  // Called on every snapshot the API answers with (not on what the rules
  // send): adds annotations the agent keeps for alerts, such as an
  // alert-triggered trace capture (trace_capture.h). Set before the routes
  // serve; must be thread-safe.
  using SnapshotDecorator = std::function<void(std::vector<rules::GroupSnapshot>&)>;
  void set_snapshot_decorator(SnapshotDecorator d) { decorator_ = std::move(d); }

  // GET /api/v1/rules, /api/v1/alerts and POST /-/reload.
  Status register_routes(http::Server& server);
  // llmon_rule_* and llmon_rules_config_* metrics.
  std::unique_ptr<collector::Collector> make_collector() const;

 private:
  AlertingOptions options_;
  base::Logger& log_;
  rules::Manager manager_;
  std::mutex reload_mu_;
  mutable std::mutex stats_mu_;
  ReloadStats stats_;
  SnapshotDecorator decorator_;
};

}  // namespace llmon::app
