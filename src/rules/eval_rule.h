// What recording and alerting rules share while they are evaluated: rule
// health, alert states, the per-evaluation context and the Rule base class
// (Prometheus's rules.Rule interface). Not the schedule (manager.h) nor the
// per-group bookkeeping (group.h).
//
// Thread-safety: a Rule is evaluated by one thread at a time (its group's);
// its status (health, last error, evaluation time) and, for alerting rules,
// its alerts may be read from any thread: they sit behind the rule's mutex.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/log.h"
#include "base/status.h"
#include "promql/engine.h"
#include "promql/value.h"
#include "rules/rule_types.h"
#include "storage/storage.h"

namespace llmon::rules {

// Prometheus's RuleHealth: "unknown" until the first evaluation.
enum class RuleHealth { kUnknown, kOk, kErr };
std::string_view rule_health_text(RuleHealth h);  // "unknown", "ok", "err"

// Prometheus's AlertState; a rule's state is the highest of its alerts'.
enum class AlertState { kInactive, kPending, kFiring };
std::string_view alert_state_text(AlertState s);  // "inactive", "pending", "firing"

// Everything one rule evaluation needs besides the rule itself. Pointers are
// borrowed for the duration of the call.
struct EvalContext {
  int64_t ts_ms = 0;            // the group's evaluation time
  int64_t query_offset_ms = 0;  // queries run (and samples are stamped) at ts_ms - query_offset_ms
  promql::Engine* engine = nullptr;
  int limit = 0;                                                        // the group's `limit`; 0 = none
  const std::map<std::string, std::string>* external_labels = nullptr;  // $externalLabels
  std::string_view external_url;                                        // $externalURL
  // --web.external-url for the externalURL/pathPrefix template functions;
  // unset (promtool) they fail as in Prometheus.
  const std::optional<std::string>* template_external_url = nullptr;
  base::Logger* logger = nullptr;  // optional: template expansion failures are logged at warn
};

// Prometheus's EngineQueryFunc: an instant query whose vector result is
// returned as is, a scalar as one sample without labels, anything else the
// error "rule result is not a vector or scalar". The error text is the
// engine's message.
Expected<promql::Vector> query_vector(promql::Engine& engine, const promql::Expr& expr, int64_t t_ms);
Expected<promql::Vector> query_vector(promql::Engine& engine, std::string_view expr, int64_t t_ms);

// Prometheus's labels.Builder: set (an empty value deletes), del, build.
class LabelsBuilder {
 public:
  LabelsBuilder() = default;
  explicit LabelsBuilder(const model::Labels& base);
  explicit LabelsBuilder(const StringPairs& base);
  LabelsBuilder& set(const std::string& name, std::string value);
  LabelsBuilder& del(const std::string& name);
  // Sorted; a label with an empty name (impossible for validated rules)
  // is dropped rather than failing.
  model::Labels labels() const;

 private:
  std::map<std::string, std::string> m_;
};

// Status of a rule as the API shows it.
struct RuleStatus {
  RuleHealth health = RuleHealth::kUnknown;
  std::string last_error;                     // empty when none
  std::optional<int64_t> last_evaluation_ms;  // clock time the last evaluation started
  double evaluation_time_s = 0;               // how long it took
};

class Rule {
 public:
  // `group_labels` are merged under the rule's own labels (a rule label of
  // the same name wins); the result is kept sorted by name.
  Rule(const RuleSpec& spec, const StringPairs& group_labels);
  virtual ~Rule() = default;
  Rule(const Rule&) = delete;
  Rule& operator=(const Rule&) = delete;

  const RuleSpec& spec() const { return spec_; }
  RuleSpec::Kind kind() const { return spec_.kind; }
  const std::string& name() const { return spec_.name; }
  const promql::Expr& expr() const { return *spec_.parsed; }
  const std::string& query() const { return query_; }    // the printed expression (Prometheus's String())
  const StringPairs& labels() const { return labels_; }  // effective, sorted by name

  // Runs the rule at ctx.ts_ms and returns the samples to append (already
  // labelled and stamped). Errors are the rule's evaluation error; health
  // and last error are set by the caller (Group), as in Prometheus.
  virtual Expected<promql::Vector> eval(const EvalContext& ctx) = 0;

  // Prometheus's rule.String() reduced to what it compares: kind, name,
  // printed expr, for, keep_firing_for, labels, annotations. Equal strings
  // mean equal rules (Group::equals).
  std::string canonical() const;
  // Name + labels (`name{a="b"}` style), the key CopyState matches rules by.
  std::string identity() const;

  void set_health(RuleHealth h, std::string last_error);
  void set_evaluation(int64_t started_ms, double duration_s);
  RuleStatus status() const;

 protected:
  mutable std::mutex mu_;  // guards status_ (and subclass state documented as such)

 private:
  RuleSpec spec_;
  std::string query_;
  StringPairs labels_;
  RuleStatus status_;
};

}  // namespace llmon::rules
