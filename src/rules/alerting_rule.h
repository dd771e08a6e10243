// An alerting rule (Prometheus 2.42's rules.AlertingRule): the alert state
// machine. Each evaluation queries the expr; every result sample becomes an
// alert identified by its labels (sample labels minus __name__, plus the
// rule's label templates expanded - an empty expansion removes the label -
// plus alertname). A new label set is pending with ActiveAt = ts and fires
// once ts - ActiveAt >= `for`. When its label set is absent, a pending alert
// is dropped; a firing one keeps firing while ts - KeepFiringSince <
// `keep_firing_for` (KeepFiringSince = the first evaluation that missed it),
// then resolves (inactive, ResolvedAt = ts) and is kept 15 minutes for
// resending, then dropped. A resolved label set that reappears starts a new
// pending alert. Annotations and the value follow the latest sample.
//
// Output per pending/firing alert, once the rule is restored:
// ALERTS{<rule labels as written, overridden by the alert's>, alertstate} = 1
// and ALERTS_FOR_STATE{...} = ActiveAt in Unix seconds.
// Errors (Prometheus's wording): the engine's; "vector contains metrics with
// the same labelset after applying alert labels" (state untouched);
// "exceeded limit of N with M alerts" (all alerts dropped).
//
// Thread-safety: eval/send/restore/take_alerts_from run on the group's
// thread; alerts() and state() from any thread (under the rule's mutex).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "notify/alert.h"
#include "rules/eval_rule.h"
#include "rules/template.h"
#include "storage/storage.h"

namespace llmon::rules {

// Prometheus's rules.Alert. Optional times are Go's zero time when unset.
struct Alert {
  AlertState state = AlertState::kPending;
  model::Labels labels;     // includes alertname
  StringPairs annotations;  // sorted by name, expanded
  double value = 0;
  int64_t active_at_ms = 0;
  std::optional<int64_t> fired_at_ms;
  std::optional<int64_t> resolved_at_ms;
  std::optional<int64_t> last_sent_at_ms;
  std::optional<int64_t> valid_until_ms;
  std::optional<int64_t> keep_firing_since_ms;

  // Prometheus's needsSending: never while pending; when resolved since the
  // last send; otherwise when last send + resend delay < ts (strictly).
  bool needs_sending(int64_t ts_ms, int64_t resend_delay_ms) const;
};

// How long a resolved alert is kept (and resent).
inline constexpr int64_t kResolvedRetentionMs = 15 * 60 * 1000;

class AlertingRule final : public Rule {
 public:
  AlertingRule(const RuleSpec& spec, const StringPairs& group_labels, bool restored);

  Expected<promql::Vector> eval(const EvalContext& ctx) override;

  // Prometheus's sendAlerts at ts: each alert that needs sending is marked
  // sent at ts with ValidUntil = ts + 4 * max(resend delay, interval) and
  // returned as a notify::Alert (see NotifyFunc in group.h), sorted by labels.
  std::vector<notify::Alert> send(int64_t ts_ms, int64_t resend_delay_ms, int64_t interval_ms,
                                  const std::map<std::string, std::string>& external_labels,
                                  std::string_view external_url);

  // Copies of the alerts, sorted by labels; resolved ones only if asked.
  std::vector<Alert> alerts(bool include_resolved) const;
  // Highest state among the alerts (inactive when none).
  AlertState state() const;

  bool restored() const;
  void set_restored(bool r);
  // RestoreForState for this rule's alerts from `q` (see Group); the rule is
  // marked restored. `now_ms` is the restore time.
  // `q` covers [mint_ms, now_ms].
  void restore_for_state(storage::Querier& q, int64_t mint_ms, int64_t now_ms, int64_t grace_period_ms,
                         base::Logger* logger);
  // Reload: takes over `old`'s alerts (Prometheus copies them verbatim).
  void take_alerts_from(AlertingRule& old);

  // The series labels of ALERTS / ALERTS_FOR_STATE for an alert.
  model::Labels alerts_labels(const Alert& a) const;
  model::Labels for_state_labels(const Alert& a) const;

 private:
  struct Tmpl {
    std::string name;
    std::string text;
    Expected<Template> parsed;
  };
  std::vector<Tmpl> label_tmpls_;
  std::vector<Tmpl> annotation_tmpls_;
  StringPairs sorted_annotations_;

  // Under mu_ (Rule's): the alerts by label set, and whether restored.
  std::map<model::Labels, Alert> active_;
  bool restored_ = false;
};

}  // namespace llmon::rules
