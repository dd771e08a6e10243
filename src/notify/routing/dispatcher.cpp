// Dispatcher (see dispatcher.h). Semantics from Alertmanager 0.25:
// api/v2 postAlertsHandler (defaults), provider/mem Put + types.Alert.Merge
// (merging), dispatch/dispatch.go (groups, timers), notify/notify.go
// (MuteStage, DedupStage.needsUpdate, RetryStage's send_resolved filter,
// SetNotifiesStage) and nflog (the notification log).
#include "notify/routing/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <climits>

#include "base/utf8.h"

namespace llmon::notify {

std::map<std::string, std::vector<Integration>, std::less<>> integrations_of(const NotifyConfig& cfg) {
  std::map<std::string, std::vector<Integration>, std::less<>> out;
  for (const auto& r : cfg.receivers) {
    auto& v = out[r.name];
    for (size_t i = 0; i < r.email_configs.size(); ++i)
      v.push_back({"email[" + std::to_string(i) + "]", r.email_configs[i].send_resolved});
    for (size_t i = 0; i < r.webhook_configs.size(); ++i)
      v.push_back({"webhook[" + std::to_string(i) + "]", r.webhook_configs[i].send_resolved});
    for (size_t i = 0; i < r.exec_configs.size(); ++i)
      v.push_back({"exec[" + std::to_string(i) + "]", r.exec_configs[i].send_resolved});
    for (size_t i = 0; i < r.trace_capture_configs.size(); ++i)
      v.push_back({"trace_capture[" + std::to_string(i) + "]", r.trace_capture_configs[i].send_resolved});
  }
  return out;
}

namespace {

std::string_view label_of(const Alert& a, std::string_view name, bool& found) {
  for (const auto& [k, v] : a.labels)
    if (k == name) {
      found = true;
      return v;
    }
  found = false;
  return {};
}

// model.LabelSet.Before on sorted label vectors.
bool labels_before(const LabelPairs& a, const LabelPairs& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  std::vector<std::string_view> names;
  names.reserve(a.size() * 2);
  for (const auto& p : a) names.push_back(p.first);
  for (const auto& p : b) names.push_back(p.first);
  std::sort(names.begin(), names.end());
  auto find = [](const LabelPairs& ls, std::string_view n) -> const std::string* {
    for (const auto& [k, v] : ls)
      if (k == n) return &v;
    return nullptr;
  };
  for (auto n : names) {
    const std::string* av = find(a, n);
    if (!av) return true;
    const std::string* bv = find(b, n);
    if (!bv) return false;
    if (*av != *bv) return *av < *bv;
  }
  return false;
}

bool subset(const std::vector<uint64_t>& sub, const std::vector<uint64_t>& super) {
  return std::includes(super.begin(), super.end(), sub.begin(), sub.end());
}

Status validate(const Alert& a) {
  if (a.labels.empty()) return Status::error("at least one label pair required");
  for (size_t i = 0; i < a.labels.size(); ++i) {
    const auto& [k, v] = a.labels[i];
    if (!is_valid_label_name(k)) return Status::error("invalid label name \"" + k + "\"");
    if (!base::is_valid_utf8(v)) return Status::error("invalid label value for \"" + k + "\": not UTF-8");
    if (i > 0 && a.labels[i - 1].first == k) return Status::error("duplicate label name \"" + k + "\"");
  }
  if (a.ends_at_ms != 0 && a.ends_at_ms < a.starts_at_ms) return Status::error("start time must be before end time");
  return Status::ok();
}

}  // namespace

bool alert_order_less(const Alert& a, const Alert& b) {
  for (std::string_view key : {"job", "instance"}) {
    bool af = false, bf = false;
    std::string_view av = label_of(a, key, af), bv = label_of(b, key, bf);
    if (!af && !bf) continue;
    if (!af) return false;
    if (!bf) return true;
    if (av != bv) return av < bv;
  }
  return labels_before(a.labels, b.labels);
}

Dispatcher::Dispatcher(const NotifyConfig& cfg, const base::Clock& clock, NotifyFn notify, DispatcherOptions opts,
                       MuteFn silenced)
    : clock_(clock),
      notify_(std::move(notify)),
      silenced_(std::move(silenced)),
      opts_(std::move(opts)),
      root_(Route::build(cfg.route)),
      integrations_(integrations_of(cfg)),
      inhibitor_(cfg.inhibit_rules) {
  if (opts_.resolve_timeout_ms < 0) opts_.resolve_timeout_ms = cfg.global.resolve_timeout_ms;
}

Dispatcher::~Dispatcher() {
  stop();
}

Status Dispatcher::put(const std::vector<Alert>& alerts) {
  Status first_error;
  {
    std::lock_guard lk(mu_);
    const int64_t now = clock_.now_ms();
    for (size_t i = 0; i < alerts.size(); ++i) {
      ++stats_.alerts_received;
      Status s = put_one(alerts[i], now);
      if (!s) {
        ++stats_.alerts_invalid;
        if (first_error.is_ok()) first_error = s.with_context("alert " + std::to_string(i));
      }
    }
  }
  cv_.notify_all();
  return first_error;
}

Status Dispatcher::put_one(Alert a, int64_t now) {
  std::sort(a.labels.begin(), a.labels.end());
  std::sort(a.annotations.begin(), a.annotations.end());
  if (a.starts_at_ms == 0) a.starts_at_ms = a.ends_at_ms != 0 ? a.ends_at_ms : now;
  bool timeout = false;
  if (a.ends_at_ms == 0) {
    timeout = true;
    a.ends_at_ms = now + opts_.resolve_timeout_ms;
  }
  if (Status s = validate(a); !s) return s;
  const uint64_t fp = labels_fingerprint(a.labels);

  auto it = store_.find(fp);
  if (it == store_.end()) {
    if (store_.size() >= opts_.limits.max_alerts) {
      ++stats_.alerts_dropped_store_full;
      return Status::ok();
    }
  } else {
    // provider/mem: merge when the activity ranges overlap.
    const StoredAlert& old = it->second;
    const Alert& o = *old.alert;
    if ((a.ends_at_ms > o.starts_at_ms && a.ends_at_ms < o.ends_at_ms) ||
        (a.starts_at_ms > o.starts_at_ms && a.starts_at_ms < o.ends_at_ms)) {
      // types.Alert.Merge with `a` the younger alert.
      const int64_t merged_start = std::min(o.starts_at_ms, a.starts_at_ms);
      int64_t merged_end = a.ends_at_ms;
      if (a.resolved_at(now)) {
        if (o.resolved_at(now) && o.ends_at_ms > a.ends_at_ms) merged_end = o.ends_at_ms;
      } else if (o.ends_at_ms > a.ends_at_ms && !old.timeout) {
        merged_end = o.ends_at_ms;
      }
      a.starts_at_ms = merged_start;
      a.ends_at_ms = merged_end;
    }
  }
  auto snapshot = std::make_shared<const Alert>(std::move(a));
  StoredAlert& st = store_[fp];
  st.alert = snapshot;
  st.timeout = timeout;
  st.updated_at_ms = now;
  inhibitor_.observe(*snapshot, fp);
  for (const Route* r : root_->match(snapshot->labels)) insert_locked(r, snapshot, fp, now);
  return Status::ok();
}

void Dispatcher::insert_locked(const Route* route, const std::shared_ptr<const Alert>& alert, uint64_t fp,
                               int64_t now) {
  const Alert& a = *alert;
  LabelPairs gl = route->group_labels(a.labels);
  GroupId id{route, labels_fingerprint(gl)};
  auto it = groups_.find(id);
  if (it == groups_.end()) {
    if (groups_.size() >= opts_.limits.max_groups) {
      ++stats_.groups_limit_reached;
      return;
    }
    Group g;
    g.route = route;
    g.key = route->group_key(gl);
    g.labels = std::move(gl);
    g.next_flush_ms = now + route->opts().group_wait_ms;
    it = groups_.emplace(id, std::move(g)).first;
  }
  Group& g = it->second;
  if (!g.alerts.count(fp) && g.alerts.size() >= opts_.limits.max_alerts_per_group) {
    ++stats_.alerts_dropped_group_full;
    return;
  }
  GroupAlert& ga = g.alerts[fp];
  ga.alert = alert;
  ga.updated_at_ms = now;
  // An alert that started more than group_wait ago flushes a new group at once.
  if (!g.has_flushed && a.starts_at_ms + route->opts().group_wait_ms < now) g.next_flush_ms = now;
}

void Dispatcher::tick(int64_t now_ms) {
  std::lock_guard lk(mu_);
  tick_locked(now_ms);
}

void Dispatcher::tick_locked(int64_t now) {
  if (next_maintenance_ms_ < 0) next_maintenance_ms_ = now + opts_.maintenance_interval_ms;
  if (next_alert_gc_ms_ < 0) next_alert_gc_ms_ = now + opts_.alert_gc_interval_ms;
  for (auto& [id, g] : groups_) {
    if (g.next_flush_ms > now) continue;
    g.next_flush_ms = now + g.route->opts().group_interval_ms;
    g.has_flushed = true;
    flush_locked(g, now);
  }
  if (now >= next_maintenance_ms_) {
    maintenance_locked(now);
    next_maintenance_ms_ = now + opts_.maintenance_interval_ms;
  }
  if (now >= next_alert_gc_ms_) {
    for (auto it = store_.begin(); it != store_.end();)
      it = it->second.alert->resolved_at(now) ? store_.erase(it) : std::next(it);
    inhibitor_.gc(now);
    next_alert_gc_ms_ = now + opts_.alert_gc_interval_ms;
  }
}

bool Dispatcher::needs_update(const LogEntry* e, const std::vector<uint64_t>& firing,
                              const std::vector<uint64_t>& resolved, bool send_resolved, int64_t repeat_ms,
                              int64_t now) const {
  if (!e) return !firing.empty();
  if (!subset(firing, e->firing)) return true;
  // All alerts resolved: notify (irrespective of send_resolved, to clear the
  // log) unless the last notification had no firing alerts either.
  if (firing.empty()) return !e->firing.empty();
  if (send_resolved && !subset(resolved, e->resolved)) return true;
  return e->timestamp_ms < now - repeat_ms;
}

void Dispatcher::flush_locked(Group& g, int64_t now) {
  if (g.alerts.empty()) return;
  std::vector<Alert> all;
  std::vector<std::pair<uint64_t, int64_t>> resolved_snapshot;  // fp, updated_at
  all.reserve(g.alerts.size());
  for (const auto& [fp, ga] : g.alerts) {
    Alert a = *ga.alert;
    if (a.resolved_at(now))
      resolved_snapshot.emplace_back(fp, ga.updated_at_ms);
    else
      a.ends_at_ms = 0;  // as Alertmanager: firing alerts are sent without an end
    all.push_back(std::move(a));
  }
  std::stable_sort(all.begin(), all.end(), alert_order_less);

  // MuteStage: inhibition, then silences.
  std::vector<Alert> kept;
  kept.reserve(all.size());
  for (auto& a : all) {
    if ((!inhibitor_.empty() && inhibitor_.mutes(a.labels, now)) || (silenced_ && silenced_(a.labels, now))) {
      ++stats_.alerts_muted;
      continue;
    }
    kept.push_back(std::move(a));
  }

  bool all_ok = true;
  if (!kept.empty()) {
    std::vector<uint64_t> firing, resolved;
    for (const auto& a : kept) (a.resolved_at(now) ? resolved : firing).push_back(labels_fingerprint(a.labels));
    std::sort(firing.begin(), firing.end());
    std::sort(resolved.begin(), resolved.end());
    const RouteOpts& ro = g.route->opts();
    auto integ = integrations_.find(ro.receiver);
    if (integ != integrations_.end()) {
      for (const Integration& in : integ->second) {
        std::string log_key = g.key;
        log_key += '\0';
        log_key += ro.receiver;
        log_key += '\0';
        log_key += in.name;
        auto le = log_.find(log_key);
        if (!needs_update(le == log_.end() ? nullptr : &le->second, firing, resolved, in.send_resolved,
                          ro.repeat_interval_ms, now))
          continue;
        // RetryStage: without send_resolved only firing alerts go out, and a
        // notification with none is skipped (but still logged).
        bool delivered = true;
        if (in.send_resolved || !firing.empty()) {
          Notification n;
          n.receiver = ro.receiver;
          n.group_key = g.key;
          n.group_labels = g.labels;
          n.created_ms = now;
          n.external_url = opts_.external_url;
          for (const auto& a : kept)
            if (in.send_resolved || !a.resolved_at(now)) n.alerts.push_back(a);
          delivered = notify_ ? notify_(in, n) : true;
          ++(delivered ? stats_.notifications : stats_.notifications_failed);
        }
        if (delivered)
          log_locked(std::move(log_key), LogEntry{firing, resolved, now});
        else
          all_ok = false;
      }
    }
  }
  if (all_ok) {
    // Delete the resolved alerts just notified unless they changed meanwhile.
    for (const auto& [fp, updated] : resolved_snapshot) {
      auto it = g.alerts.find(fp);
      if (it != g.alerts.end() && it->second.updated_at_ms == updated) g.alerts.erase(it);
    }
  }
}

void Dispatcher::log_locked(std::string key, LogEntry e) {
  log_[std::move(key)] = std::move(e);
  while (log_.size() > opts_.limits.max_log_entries) {
    auto oldest = log_.begin();
    for (auto it = log_.begin(); it != log_.end(); ++it)
      if (it->second.timestamp_ms < oldest->second.timestamp_ms) oldest = it;
    log_.erase(oldest);
    ++stats_.log_entries_evicted;
  }
  persist_log_locked();
}

void Dispatcher::persist_log_locked() {
  if (opts_.log_file.empty()) return;
  if (!write_file_atomic(opts_.log_file, encode_nflog(log_))) ++stats_.log_write_errors;
}

Status Dispatcher::load_log() {
  if (opts_.log_file.empty()) return Status::ok();
  auto loaded = load_nflog(opts_.log_file, clock_.now_ms());
  std::lock_guard lk(mu_);
  if (!loaded) return loaded.status();
  log_ = std::move(*loaded);
  return Status::ok();
}

void Dispatcher::maintenance_locked(int64_t now) {
  for (auto it = groups_.begin(); it != groups_.end();)
    it = it->second.alerts.empty() ? groups_.erase(it) : std::next(it);
  const size_t before = log_.size();
  for (auto it = log_.begin(); it != log_.end();)
    it = it->second.timestamp_ms + opts_.log_retention_ms < now ? log_.erase(it) : std::next(it);
  if (log_.size() != before) persist_log_locked();
}

int64_t Dispatcher::next_deadline_locked() const {
  int64_t next = INT64_MAX;
  for (const auto& [id, g] : groups_) next = std::min(next, g.next_flush_ms);
  if (!groups_.empty() || !log_.empty()) {
    if (next_maintenance_ms_ >= 0) next = std::min(next, next_maintenance_ms_);
  }
  if (!store_.empty() && next_alert_gc_ms_ >= 0) next = std::min(next, next_alert_gc_ms_);
  return next;
}

int64_t Dispatcher::next_deadline_ms() const {
  std::lock_guard lk(mu_);
  return next_deadline_locked();
}

void Dispatcher::run() {
  std::unique_lock lk(mu_);
  while (!stopping_) {
    const int64_t now = clock_.now_ms();
    const int64_t next = next_deadline_locked();
    if (next <= now || next_maintenance_ms_ < 0) {
      tick_locked(now);
      continue;
    }
    // Wake at least once a second so a clock step is noticed.
    const int64_t wait_ms = std::min<int64_t>(next - now, 1000);
    cv_.wait_for(lk, std::chrono::milliseconds(wait_ms));
  }
}

void Dispatcher::stop() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
}

DispatcherStats Dispatcher::stats() const {
  std::lock_guard lk(mu_);
  DispatcherStats s = stats_;
  s.alerts = store_.size();
  s.groups = groups_.size();
  s.log_entries = log_.size();
  return s;
}

std::vector<Alert> Dispatcher::alerts() const {
  std::vector<Alert> out;
  {
    std::lock_guard lk(mu_);
    out.reserve(store_.size());
    for (const auto& [fp, st] : store_) out.push_back(*st.alert);
  }
  std::sort(out.begin(), out.end(), [](const Alert& a, const Alert& b) { return a.labels < b.labels; });
  return out;
}

std::vector<GroupSnapshot> Dispatcher::groups() const {
  std::vector<GroupSnapshot> out;
  {
    std::lock_guard lk(mu_);
    for (const auto& [id, g] : groups_) {
      if (g.alerts.empty()) continue;
      GroupSnapshot s{g.route->opts().receiver, g.key, g.labels, {}};
      for (const auto& [fp, ga] : g.alerts) s.alerts.push_back(*ga.alert);
      std::stable_sort(s.alerts.begin(), s.alerts.end(), alert_order_less);
      out.push_back(std::move(s));
    }
  }
  std::sort(out.begin(), out.end(), [](const GroupSnapshot& a, const GroupSnapshot& b) {
    return std::tie(a.group_key, a.receiver) < std::tie(b.group_key, b.receiver);
  });
  return out;
}

}  // namespace llmon::notify
