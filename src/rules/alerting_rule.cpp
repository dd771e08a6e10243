// The alert state machine (Prometheus 2.42 rules/alerting.go).
#include "rules/alerting_rule.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "go/strings.h"
#include "rules/template_value.h"

namespace llmon::rules {

bool Alert::needs_sending(int64_t ts_ms, int64_t resend_delay_ms) const {
  if (state == AlertState::kPending) return false;
  // Resolved since the last send (a zero LastSentAt is before everything).
  if (resolved_at_ms && (!last_sent_at_ms || *resolved_at_ms > *last_sent_at_ms)) return true;
  // Go's zero time plus the delay is before any real timestamp.
  return !last_sent_at_ms || *last_sent_at_ms + resend_delay_ms < ts_ms;
}

AlertingRule::AlertingRule(const RuleSpec& spec, const StringPairs& group_labels, bool restored)
    : Rule(spec, group_labels), restored_(restored) {
  for (const auto& [k, v] : labels()) label_tmpls_.push_back({k, v, parse_alert_template(spec.name, v)});
  sorted_annotations_ = spec.annotations;
  std::stable_sort(sorted_annotations_.begin(), sorted_annotations_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // Prometheus keeps annotations in a labels.Labels built from a map: one
  // value per name (the last written), sorted by name.
  StringPairs uniq;
  for (const auto& p : sorted_annotations_) {
    if (!uniq.empty() && uniq.back().first == p.first) {
      uniq.back() = p;
    } else {
      uniq.push_back(p);
    }
  }
  sorted_annotations_ = std::move(uniq);
  for (const auto& [k, v] : sorted_annotations_)
    annotation_tmpls_.push_back({k, v, parse_alert_template(spec.name, v)});
}

namespace {

std::map<std::string, std::string> to_map(const model::Labels& l) {
  std::map<std::string, std::string> m;
  for (const auto& p : l.pairs()) m[p.name] = p.value;
  return m;
}

int64_t unix_seconds(int64_t ms) {
  return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
}

}  // namespace

Expected<promql::Vector> AlertingRule::eval(const EvalContext& ctx) {
  const int64_t ts = ctx.ts_ms;
  const int64_t query_ts = ts - ctx.query_offset_ms;
  auto res = query_vector(*ctx.engine, expr(), query_ts);
  if (!res) return res.status();

  TemplateEnv env;
  promql::Engine* engine = ctx.engine;
  env.query = [engine, ts](std::string_view q) -> Expected<std::vector<tmpl::Sample>> {
    auto v = query_vector(*engine, q, ts);
    if (!v) return v.status();
    std::vector<tmpl::Sample> out;
    out.reserve(v->size());
    for (const auto& s : *v) out.push_back(tmpl::Sample{to_map(s.labels), s.v});
    return out;
  };
  if (ctx.template_external_url) env.external_url = *ctx.template_external_url;
  static const std::map<std::string, std::string> kNoLabels;
  const auto& ext_labels = ctx.external_labels ? *ctx.external_labels : kNoLabels;

  std::map<model::Labels, Alert> fresh;
  for (const auto& smpl : *res) {
    tmpl::Value data =
        tmpl::alert_template_data(to_map(smpl.labels), ext_labels, std::string(ctx.external_url), smpl.v);
    auto expand_one = [&](const Tmpl& t) -> std::string {
      std::string err;
      if (!t.parsed) {
        err = t.parsed.error();
      } else {
        auto out = expand(*t.parsed, data, env);
        if (out) return std::move(*out);
        err = out.error();
      }
      if (ctx.logger) ctx.logger->warn("Expanding alert template failed", {{"alert", name()}, {"err", err}});
      return "<error expanding template: " + err + ">";
    };
    LabelsBuilder lb(smpl.labels);
    lb.del("__name__");
    for (const auto& t : label_tmpls_) lb.set(t.name, expand_one(t));
    lb.set("alertname", name());
    StringPairs annotations;
    annotations.reserve(annotation_tmpls_.size());
    for (const auto& t : annotation_tmpls_) annotations.emplace_back(t.name, expand_one(t));
    model::Labels lbs = lb.labels();
    if (fresh.count(lbs))
      return Status::error("vector contains metrics with the same labelset after applying alert labels");
    Alert a;
    a.state = AlertState::kPending;
    a.labels = lbs;
    a.annotations = std::move(annotations);
    a.value = smpl.v;
    a.active_at_ms = ts;
    fresh.emplace(std::move(lbs), std::move(a));
  }

  std::lock_guard lock(mu_);
  for (auto& [lbs, a] : fresh) {
    auto it = active_.find(lbs);
    if (it != active_.end() && it->second.state != AlertState::kInactive) {
      it->second.value = a.value;
      it->second.annotations = std::move(a.annotations);
      continue;
    }
    active_.insert_or_assign(lbs, std::move(a));
  }

  const int64_t hold = spec().for_ms;
  const int64_t keep_for = spec().keep_firing_for_ms;
  promql::Vector vec;
  int64_t num_active_pending = 0;
  for (auto it = active_.begin(); it != active_.end();) {
    Alert& a = it->second;
    if (!fresh.count(it->first)) {
      bool keep_firing = false;
      if (a.state == AlertState::kFiring && keep_for > 0) {
        if (!a.keep_firing_since_ms) a.keep_firing_since_ms = ts;
        if (ts - *a.keep_firing_since_ms < keep_for) keep_firing = true;
      }
      bool drop =
          a.state == AlertState::kPending || (a.resolved_at_ms && ts - *a.resolved_at_ms > kResolvedRetentionMs);
      if (a.state != AlertState::kInactive && !keep_firing) {
        a.state = AlertState::kInactive;
        a.resolved_at_ms = ts;
      }
      if (drop) {
        it = active_.erase(it);
        continue;
      }
      if (!keep_firing) {
        ++it;
        continue;
      }
    } else {
      a.keep_firing_since_ms.reset();
    }
    ++num_active_pending;
    if (a.state == AlertState::kPending && ts - a.active_at_ms >= hold) {
      a.state = AlertState::kFiring;
      a.fired_at_ms = ts;
    }
    if (restored_) {
      vec.push_back(promql::VectorSample{alerts_labels(a), query_ts, 1});
      vec.push_back(
          promql::VectorSample{for_state_labels(a), query_ts, static_cast<double>(unix_seconds(a.active_at_ms))});
    }
    ++it;
  }
  if (ctx.limit > 0 && num_active_pending > ctx.limit) {
    active_.clear();
    return Status::error("exceeded limit of " + std::to_string(ctx.limit) + " with " +
                         std::to_string(num_active_pending) + " alerts");
  }
  return vec;
}

model::Labels AlertingRule::alerts_labels(const Alert& a) const {
  LabelsBuilder lb(labels());
  for (const auto& p : a.labels.pairs()) lb.set(p.name, p.value);
  lb.set("__name__", "ALERTS");
  lb.set("alertname", name());
  lb.set("alertstate", std::string(alert_state_text(a.state)));
  return lb.labels();
}

model::Labels AlertingRule::for_state_labels(const Alert& a) const {
  LabelsBuilder lb(labels());
  for (const auto& p : a.labels.pairs()) lb.set(p.name, p.value);
  lb.set("__name__", "ALERTS_FOR_STATE");
  lb.set("alertname", name());
  return lb.labels();
}

std::vector<notify::Alert> AlertingRule::send(int64_t ts_ms, int64_t resend_delay_ms, int64_t interval_ms,
                                              const std::map<std::string, std::string>& external_labels,
                                              std::string_view external_url) {
  std::vector<notify::Alert> out;
  std::lock_guard lock(mu_);
  for (auto& [lbs, a] : active_) {
    if (!a.needs_sending(ts_ms, resend_delay_ms)) continue;
    a.last_sent_at_ms = ts_ms;
    a.valid_until_ms = ts_ms + 4 * std::max(interval_ms, resend_delay_ms);
    notify::Alert n;
    std::map<std::string, std::string> l = to_map(a.labels);
    for (const auto& [k, v] : external_labels)
      if (l.find(k) == l.end() && !v.empty()) l.emplace(k, v);
    n.labels.assign(l.begin(), l.end());
    n.annotations.assign(a.annotations.begin(), a.annotations.end());
    n.starts_at_ms = a.fired_at_ms.value_or(0);
    n.ends_at_ms = a.resolved_at_ms ? *a.resolved_at_ms : *a.valid_until_ms;
    n.generator_url = std::string(external_url) + "/graph?g0.expr=" + go::query_escape(query()) + "&g0.tab=1";
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<Alert> AlertingRule::alerts(bool include_resolved) const {
  std::vector<Alert> out;
  std::lock_guard lock(mu_);
  for (const auto& [lbs, a] : active_)
    if (include_resolved || !a.resolved_at_ms) out.push_back(a);
  return out;
}

AlertState AlertingRule::state() const {
  std::lock_guard lock(mu_);
  AlertState s = AlertState::kInactive;
  for (const auto& [lbs, a] : active_) s = std::max(s, a.state);
  return s;
}

bool AlertingRule::restored() const {
  std::lock_guard lock(mu_);
  return restored_;
}

void AlertingRule::set_restored(bool r) {
  std::lock_guard lock(mu_);
  restored_ = r;
}

void AlertingRule::restore_for_state(storage::Querier& q, int64_t mint_ms, int64_t now_ms, int64_t grace_period_ms,
                                     base::Logger* logger) {
  const int64_t hold = spec().for_ms;
  std::lock_guard lock(mu_);
  if (hold < grace_period_ms) {
    // Waiting the grace period would delay it more than its own `for`.
    restored_ = true;
    return;
  }
  for (auto& [lbs, a] : active_) {
    model::Labels want = for_state_labels(a);
    std::vector<model::Matcher> matchers;
    for (const auto& p : want.pairs()) matchers.push_back({model::Matcher::Type::kEq, p.name, p.value});
    auto set = q.select(mint_ms, now_ms, matchers);
    bool found = false;
    int64_t t = 0;
    double v = 0;
    while (set->next()) {
      if (!(set->at().labels() == want)) continue;
      auto it = set->at().iterator();
      while (it->next()) {
        found = true;
        t = it->at().t_ms;
        v = it->at().v;
      }
      if (!it->err().is_ok()) {
        if (logger)
          logger->error("Failed to restore 'for' state",
                        {{"alertname", name()}, {"stage", "Iterator"}, {"err", it->err().message()}});
        found = false;
      }
      break;
    }
    if (!set->err().is_ok()) {
      if (logger)
        logger->error("Failed to restore 'for' state",
                      {{"alertname", name()}, {"stage", "Select"}, {"err", set->err().message()}});
      continue;
    }
    if (!found || model::is_stale(v)) continue;
    // Go's int64(v) of a NaN or out-of-range value is meaningless; skip it.
    if (!std::isfinite(v) || std::fabs(v) > 9.2e15) continue;
    const int64_t down_at = t / 1000 * 1000;
    int64_t restored_active = static_cast<int64_t>(v) * 1000;
    const int64_t remaining = hold - (down_at - restored_active);
    if (remaining <= 0) {
      // It was firing when we went down; the next evaluation fires it again.
    } else if (remaining < grace_period_ms) {
      restored_active = now_ms + grace_period_ms - hold;
    } else {
      restored_active += now_ms - down_at;
    }
    a.active_at_ms = restored_active;
    if (logger && logger->enabled(base::LogLevel::kDebug))
      logger->debug("'for' state restored", {{"alertname", name()}, {"labels", a.labels.to_string()}});
  }
  restored_ = true;
}

void AlertingRule::take_alerts_from(AlertingRule& old) {
  if (&old == this) return;
  std::map<model::Labels, Alert> taken;
  {
    std::lock_guard lock(old.mu_);
    taken.swap(old.active_);
  }
  std::lock_guard lock(mu_);
  for (auto& [k, a] : taken) active_.insert_or_assign(k, std::move(a));
}

}  // namespace llmon::rules
