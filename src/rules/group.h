// A rule group being evaluated: Prometheus 2.42's rules.Group (rules/
// manager.go) without the schedule, which is the Manager's (manager.h).
// `eval(ts)` runs the rules in file order at one timestamp; each rule's
// output is appended and committed before the next rule runs, so later rules
// see earlier rules' output. Series a rule produced last time but not this
// time get a staleness marker at the evaluation time. Alerting rules keep
// their alerts (alerting_rule.h) and hand the ones due to Alertmanager to the
// notify callback (Prometheus's needsSending / SendAlerts). Evaluation errors
// never stop the group: they set the rule's health to "err" and its last
// error, and the next rule runs.
//
// Not a parser: takes a validated GroupSpec (rule_types.h) whose exprs are
// parsed. Does not own the storage, the engine or the clock.
//
// A promtool-style runner (`rules test`) does what promtool 2.42 does:
// create each group with restored = true and template_external_url unset
// (external_url = the test's external_url, external_labels likewise), call
// eval(ts) at every evaluation_interval step, read errors from
// rule(i).status().last_error and the alerts to compare from alerts_of(i)
// keeping those in state kFiring.
//
// Thread-safety: eval(), restore_for_state(), copy_state_from() and
// mark_stale() are called by one thread at a time (the group's evaluator);
// snapshot() and counters() may be called from any thread concurrently with
// them (per-rule mutexes; the snapshot is a copy).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "notify/alert.h"
#include "promql/engine.h"
#include "rules/eval_rule.h"
#include "rules/rule_types.h"
#include "storage/storage.h"

namespace llmon::rules {

// Receives the alerts one alerting rule sends in one evaluation (never an
// empty vector). Alerts are built as Prometheus's SendAlerts + notifier.Send
// build them: labels sorted, the external labels added where the alert lacks
// them; annotations sorted; starts_at = when it started firing; ends_at =
// the resolve time for a resolved alert, else eval time + 4 * max(resend
// delay, group interval); generator_url = external URL +
// "/graph?g0.expr=<url.QueryEscape(expr)>&g0.tab=1". Called on the
// evaluating thread; must not call back into the group.
using NotifyFunc = std::function<void(std::vector<notify::Alert>)>;

struct GroupOptions {
  storage::Storage* storage = nullptr;  // required: rule output is appended here; restore reads it
  promql::Engine* engine = nullptr;     // required: over the same storage
  const base::Clock* clock = nullptr;   // required: lastEvaluation stamps, restore's "now"
  base::Logger* logger = nullptr;       // optional
  // Optional. When empty nothing is delivered, but alerts are still marked
  // sent (LastSentAt/ValidUntil advance), as with promtool's no-op notifier.
  NotifyFunc notify;

  std::map<std::string, std::string> external_labels;  // $externalLabels; added to sent alerts
  std::string external_url;                            // $externalURL and the generator URL prefix
  // For the externalURL/pathPrefix template functions: the server passes
  // --web.external-url (set it to external_url), promtool nothing (unset).
  std::optional<std::string> template_external_url;

  int64_t default_interval_ms = 60'000;     // for a spec with interval_ms == 0 (global evaluation_interval)
  int64_t default_query_offset_ms = 0;      // for a spec without query_offset
  int64_t resend_delay_ms = 60'000;         // --rules.alert.resend-delay
  int64_t outage_tolerance_ms = 3'600'000;  // --rules.alert.for-outage-tolerance
  int64_t for_grace_period_ms = 600'000;    // --rules.alert.for-grace-period
  // Whether alerting rules write ALERTS/ALERTS_FOR_STATE from the first
  // evaluation. Prometheus starts the groups it loads at startup unrestored
  // (nothing written until restore_for_state()), later reloads restored;
  // promtool restored (both checked against 2.42). The Manager sets this.
  bool restored = true;
};

// One alert instance as the API shows it (/api/v1/alerts, rules' "alerts").
struct AlertSnapshot {
  notify::LabelPairs labels;       // sorted, includes alertname
  notify::LabelPairs annotations;  // sorted
  AlertState state = AlertState::kPending;
  int64_t active_at_ms = 0;
  double value = 0;
  std::optional<int64_t> fired_at_ms;
  std::optional<int64_t> keep_firing_since_ms;
};

struct RuleSnapshot {
  RuleSpec::Kind kind = RuleSpec::Kind::kRecording;
  std::string name;
  std::string query;  // printed expression
  int64_t for_ms = 0;
  int64_t keep_firing_for_ms = 0;
  StringPairs labels;       // effective (group labels merged), sorted by name
  StringPairs annotations;  // as written (templates), sorted by name
  // Alerting rules: pending and firing alerts (resolved ones that are only
  // kept for resending are not listed, as in Prometheus's ActiveAlerts()),
  // sorted by labels; state is the highest of them ("inactive" if none).
  std::vector<AlertSnapshot> alerts;
  AlertState state = AlertState::kInactive;
  RuleHealth health = RuleHealth::kUnknown;
  std::string last_error;
  std::optional<int64_t> last_evaluation_ms;
  double evaluation_time_s = 0;
};

// Plain counters for /metrics (exported as llmon_rule_* like prometheus_rule_*).
struct GroupCounters {
  uint64_t evaluations_total = 0;                 // rule evaluations (prometheus_rule_evaluations_total)
  uint64_t evaluation_failures_total = 0;         // failed rule evaluations
  uint64_t iterations_total = 0;                  // scheduled iterations (prometheus_rule_group_iterations_total)
  uint64_t iterations_missed_total = 0;           // skipped because the previous one overran
  double last_duration_s = 0;                     // prometheus_rule_group_last_duration_seconds
  double duration_s_sum = 0;                      // sum of iteration durations (a summary's _sum)
  std::optional<int64_t> last_evaluation_ms;      // group's last evaluation (clock time it started)
  std::optional<int64_t> last_eval_timestamp_ms;  // the evaluation timestamp it used
  uint64_t last_samples = 0;                      // samples produced by the last evaluation
  size_t rules = 0;
};

struct GroupSnapshot {
  std::string name;
  std::string file;
  int64_t interval_ms = 0;
  int limit = 0;
  std::vector<RuleSnapshot> rules;  // file order
  std::optional<int64_t> last_evaluation_ms;
  double evaluation_time_s = 0;
  GroupCounters counters;
};

class Group {
 public:
  // Errors: a required option missing, a rule without a parsed expr.
  static Expected<std::unique_ptr<Group>> create(GroupSpec spec, GroupOptions options);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  const GroupSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  const std::string& file() const { return spec_.file; }
  // Prometheus's GroupKey: file + ";" + name.
  std::string key() const { return spec_.file + ";" + spec_.name; }
  int64_t interval_ms() const { return interval_ms_; }
  int64_t query_offset_ms() const { return query_offset_ms_; }
  const GroupOptions& options() const { return options_; }

  // Evaluates every rule in order at ts_ms (one iteration). `stop`, when
  // given, is checked between rules: true abandons the iteration (as
  // Prometheus does when the group is stopped). Records per-rule health,
  // last error, evaluation time and duration and the group's, and counts
  // evaluations/failures. Also writes the staleness markers handed over by
  // copy_state_from() for rules that no longer exist.
  void eval(int64_t ts_ms, const std::function<bool()>& stop = {});

  // Prometheus's RestoreForState at now_ms: for each alerting rule whose
  // `for` is at least the grace period, each alert's ActiveAt is rebuilt
  // from the last ALERTS_FOR_STATE sample within [now - outage tolerance,
  // now] (none, or a staleness marker: nothing restored), shifted by the
  // downtime, or to now + grace - for when less than the grace period was
  // left. Every alerting rule is marked restored afterwards.
  void restore_for_state(int64_t now_ms);
  void set_restored(bool restored);

  // Prometheus's Group.Equals: same name, file, interval, limit, query
  // offset, labels and rules (Rule::canonical) in the same order.
  bool equals(const Group& other) const;
  // Prometheus's CopyState from the group this one replaces on reload:
  // evaluation time stamps; per rule matched by name + labels (duplicates
  // in order), the series it produced last time and, for alerting rules, its
  // alerts (with their ActiveAt, FiredAt, ...). The series of old rules left
  // unmatched are marked stale at the end of this group's next eval().
  // `old` is left without alerts; it must not be evaluated afterwards.
  void copy_state_from(Group& old);
  // Appends a staleness marker at ts_ms for every series the group produced
  // in its last evaluation and forgets them (a group removed by a reload).
  void mark_stale(int64_t ts_ms);

  // Prometheus's EvalTimestamp: the latest evaluation slot at or before
  // now_ms. Slots are interval apart at an offset within the interval taken
  // from xxhash64 of the group's file and name (its labels hash), so groups
  // spread out and keep their phase across restarts.
  int64_t eval_timestamp(int64_t now_ms) const;

  GroupSnapshot snapshot() const;
  GroupCounters counters() const;
  // For the scheduler: one more scheduled iteration plus `missed` skipped
  // ones (Prometheus counts skipped ones in both counters).
  void count_iteration(uint64_t missed);

  // The alerts of the alerting rule at `index` (file order), all of them
  // including resolved ones still retained, sorted by labels; empty for a
  // recording rule. For tests and the promtool-style runner.
  std::vector<AlertSnapshot> alerts_of(size_t index, bool include_resolved = false) const;
  size_t size() const { return rules_.size(); }
  const Rule& rule(size_t index) const { return *rules_[index]; }

 private:
  Group(GroupSpec spec, GroupOptions options);
  void eval_rule(size_t i, const EvalContext& ctx, uint64_t& samples);

  GroupSpec spec_;
  GroupOptions options_;
  int64_t interval_ms_ = 0;
  int64_t query_offset_ms_ = 0;
  std::vector<std::unique_ptr<Rule>> rules_;
  // Evaluator-thread state: series each rule wrote last time, by labels.
  std::vector<std::set<model::Labels>> previous_series_;
  std::vector<model::Labels> stale_series_;  // of rules removed by a reload

  mutable std::mutex mu_;  // guards counters_
  GroupCounters counters_;
};

// Prometheus's labels.Hash(): xxhash64 over "name\xffvalue\xff" for each
// pair in order (pairs sorted by name). Exposed for tests.
uint64_t prometheus_labels_hash(const std::vector<std::pair<std::string, std::string>>& sorted_pairs);
uint64_t xxhash64(std::string_view data, uint64_t seed = 0);

}  // namespace llmon::rules
