// Alertmanager's dispatcher for one node (dispatch/dispatch.go, the notify
// pipeline's Inhibit/Silence/Dedup/Retry stages and the notification log of
// Alertmanager 0.25), so a single llmon does not need an Alertmanager to
// avoid alert storms:
//  * put(): alerts as Prometheus posts them. A missing start becomes now (or
//    the end), a missing end becomes now + resolve_timeout; an alert is
//    merged with the stored one of the same label fingerprint as
//    Alertmanager's alert store does, then inserted into one aggregation
//    group per matching route and set of group labels.
//  * tick(now): a group notifies group_wait after it was created (at once if
//    its first alert started more than group_wait ago), then re-checks every
//    group_interval. Each check drops inhibited and silenced alerts and, per
//    receiver integration, notifies only when the firing set changed, or
//    resolved alerts are new and the integration sends resolved ones, or the
//    last notification is older than repeat_interval. Integrations with
//    send_resolved false get only the firing alerts. Resolved alerts leave the
//    group once notified (when every integration accepted).
//  * Notifications go to a caller-supplied callback (the delivery queue);
//    returning false means "not accepted, try again next group_interval".
// Time: put() reads the injected clock; tick(now) is explicit so tests are
// deterministic; run() is an optional loop that ticks at each deadline until
// stop(). State is bounded (alerts, groups, alerts per group, log entries)
// and counted in stats(). Thread-safe; the callback runs under the
// dispatcher's lock and must not call back into it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "notify/config/notify_config.h"
#include "notify/notification.h"
#include "notify/routing/inhibit.h"
#include "notify/routing/nflog_file.h"
#include "notify/routing/route.h"

namespace llmon::notify {

// One delivery target of a receiver, named like Alertmanager's integrations:
// "email[0]", "webhook[1]", "exec[0]" (index within that kind).
struct Integration {
  std::string name;
  bool send_resolved = true;
};

// Receiver name -> its integrations in config order: email_configs, then
// webhook_configs, then exec_configs. A receiver without any (a "null"
// receiver) gets no notifications.
std::map<std::string, std::vector<Integration>, std::less<>> integrations_of(const NotifyConfig& cfg);

struct DispatcherLimits {
  size_t max_alerts = 100'000;  // alerts in the store
  size_t max_groups = 10'000;   // aggregation groups
  size_t max_alerts_per_group = 10'000;
  size_t max_log_entries = 100'000;  // notification log
};

struct DispatcherOptions {
  int64_t resolve_timeout_ms = -1;               // -1: the config's global.resolve_timeout
  int64_t maintenance_interval_ms = 30'000;      // empty groups removed (Alertmanager: 30s)
  int64_t alert_gc_interval_ms = 30 * 60'000;    // resolved alerts dropped from the store (--alerts.gc-interval)
  int64_t log_retention_ms = 120 * 3'600'000LL;  // notification log entries (--data.retention)
  std::string external_url;
  DispatcherLimits limits;
  // Where the notification log is kept across restarts (nflog_file.h);
  // empty: in memory only. Read by load_log(), rewritten after each change.
  std::string log_file;
};

struct DispatcherStats {
  uint64_t alerts_received = 0;
  uint64_t alerts_invalid = 0;
  uint64_t alerts_dropped_store_full = 0;
  uint64_t alerts_dropped_group_full = 0;
  uint64_t groups_limit_reached = 0;  // alerts not grouped because max_groups was reached
  uint64_t notifications = 0;         // accepted by the callback
  uint64_t notifications_failed = 0;  // refused by the callback
  uint64_t alerts_muted = 0;          // silenced or inhibited at flush time (counted per flush)
  uint64_t log_entries_evicted = 0;
  uint64_t log_write_errors = 0;  // failed rewrites of DispatcherOptions::log_file
  size_t alerts = 0;
  size_t groups = 0;
  size_t log_entries = 0;
};

struct GroupSnapshot {
  std::string receiver;
  std::string group_key;
  LabelPairs labels;
  std::vector<Alert> alerts;
};

class Dispatcher {
 public:
  using NotifyFn = std::function<bool(const Integration& integration, const Notification& notification)>;
  using MuteFn = std::function<bool(const LabelPairs& labels, int64_t now_ms)>;

  // `silenced` may be empty (no silences). The config is copied.
  Dispatcher(const NotifyConfig& cfg, const base::Clock& clock, NotifyFn notify, DispatcherOptions opts = {},
             MuteFn silenced = {});
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Reads DispatcherOptions::log_file (call once, before put()). A corrupt
  // file is moved aside and reported; the log then starts empty.
  Status load_log();

  // Accepts alerts; invalid ones are skipped and counted, and the returned
  // status names the first of them ("alert 3: ...").
  Status put(const std::vector<Alert>& alerts);
  // Flushes every group whose timer is due at now_ms and runs maintenance.
  void tick(int64_t now_ms);
  // Earliest time tick() has work (INT64_MAX when none).
  int64_t next_deadline_ms() const;

  // Ticks at each deadline (by the injected clock) until stop(); put() wakes
  // it. Join the thread running it before destroying the dispatcher.
  void run();
  void stop();

  DispatcherStats stats() const;
  std::vector<Alert> alerts() const;          // the store, sorted by labels
  std::vector<GroupSnapshot> groups() const;  // sorted by group key, then receiver

 private:
  // Alerts are immutable snapshots shared by the store and the groups.
  struct StoredAlert {
    std::shared_ptr<const Alert> alert;
    bool timeout = false;  // ends_at came from resolve_timeout
    int64_t updated_at_ms = 0;
  };
  struct GroupAlert {
    std::shared_ptr<const Alert> alert;
    int64_t updated_at_ms = 0;
  };
  struct Group {
    const Route* route = nullptr;
    LabelPairs labels;
    std::string key;
    std::map<uint64_t, GroupAlert> alerts;  // by alert fingerprint
    int64_t next_flush_ms = 0;
    bool has_flushed = false;
  };
  using LogEntry = NflogEntry;
  using GroupId = std::pair<const Route*, uint64_t>;

  Status put_one(Alert a, int64_t now);
  void insert_locked(const Route* route, const std::shared_ptr<const Alert>& a, uint64_t fp, int64_t now);
  void tick_locked(int64_t now);
  void flush_locked(Group& g, int64_t now);
  void maintenance_locked(int64_t now);
  int64_t next_deadline_locked() const;
  bool needs_update(const LogEntry* e, const std::vector<uint64_t>& firing, const std::vector<uint64_t>& resolved,
                    bool send_resolved, int64_t repeat_ms, int64_t now) const;
  void log_locked(std::string key, LogEntry e);
  void persist_log_locked();

  const base::Clock& clock_;
  NotifyFn notify_;
  MuteFn silenced_;
  DispatcherOptions opts_;
  std::unique_ptr<Route> root_;
  std::map<std::string, std::vector<Integration>, std::less<>> integrations_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  Inhibitor inhibitor_;
  std::unordered_map<uint64_t, StoredAlert> store_;
  std::map<GroupId, Group> groups_;
  std::unordered_map<std::string, LogEntry> log_;
  int64_t next_maintenance_ms_ = -1;
  int64_t next_alert_gc_ms_ = -1;
  DispatcherStats stats_;
};

// Alertmanager's order of alerts in a notification (types.AlertSlice): by
// the job label, then instance (alerts lacking one sort after), then by
// label set (fewer labels first, then values in name order).
bool alert_order_less(const Alert& a, const Alert& b);

}  // namespace llmon::notify
