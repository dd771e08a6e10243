// Rule base class and the helpers shared by recording and alerting rules.
#include "rules/eval_rule.h"

#include <algorithm>

#include "promql/parser.h"

namespace llmon::rules {

std::string_view rule_health_text(RuleHealth h) {
  switch (h) {
    case RuleHealth::kOk:
      return "ok";
    case RuleHealth::kErr:
      return "err";
    case RuleHealth::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view alert_state_text(AlertState s) {
  switch (s) {
    case AlertState::kPending:
      return "pending";
    case AlertState::kFiring:
      return "firing";
    case AlertState::kInactive:
      break;
  }
  return "inactive";
}

namespace {

Expected<promql::Vector> to_vector(promql::QueryResult&& r) {
  if (!r.ok()) return Status::error(r.error->message);
  if (auto* v = std::get_if<promql::Vector>(&r.value)) return std::move(*v);
  if (auto* s = std::get_if<promql::Scalar>(&r.value)) {
    promql::Vector out;
    out.push_back(promql::VectorSample{model::Labels(), s->t_ms, s->v});
    return out;
  }
  return Status::error("rule result is not a vector or scalar");
}

}  // namespace

Expected<promql::Vector> query_vector(promql::Engine& engine, const promql::Expr& expr, int64_t t_ms) {
  return to_vector(engine.instant(expr, t_ms));
}

Expected<promql::Vector> query_vector(promql::Engine& engine, std::string_view expr, int64_t t_ms) {
  return to_vector(engine.instant(expr, t_ms));
}

LabelsBuilder::LabelsBuilder(const model::Labels& base) {
  for (const auto& l : base.pairs()) m_[l.name] = l.value;
}

LabelsBuilder::LabelsBuilder(const StringPairs& base) {
  for (const auto& [k, v] : base) set(k, v);
}

LabelsBuilder& LabelsBuilder::set(const std::string& name, std::string value) {
  if (value.empty()) {
    m_.erase(name);
  } else {
    m_[name] = std::move(value);
  }
  return *this;
}

LabelsBuilder& LabelsBuilder::del(const std::string& name) {
  m_.erase(name);
  return *this;
}

model::Labels LabelsBuilder::labels() const {
  std::vector<model::Label> pairs;
  pairs.reserve(m_.size());
  for (const auto& [k, v] : m_)
    if (!k.empty()) pairs.push_back({k, v});
  auto l = model::Labels::make(std::move(pairs));
  return l ? std::move(*l) : model::Labels();
}

Rule::Rule(const RuleSpec& spec, const StringPairs& group_labels) : spec_(spec) {
  if (spec_.parsed) query_ = promql::format(*spec_.parsed);
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : group_labels) m[k] = v;
  for (const auto& [k, v] : spec_.labels) m[k] = v;
  labels_.assign(m.begin(), m.end());
}

std::string Rule::canonical() const {
  // Fields separated by bytes that never occur in UTF-8 text.
  std::string out = spec_.kind == RuleSpec::Kind::kAlerting ? "alert" : "record";
  auto add = [&out](std::string_view s) {
    out += '\xff';
    out += s;
  };
  add(spec_.name);
  add(query_);
  add(std::to_string(spec_.for_ms));
  add(std::to_string(spec_.keep_firing_for_ms));
  for (const auto& [k, v] : labels_) {
    add(k);
    out += '\xfe';
    out += v;
  }
  add("annotations");
  StringPairs ann = spec_.annotations;
  std::stable_sort(ann.begin(), ann.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [k, v] : ann) {
    add(k);
    out += '\xfe';
    out += v;
  }
  return out;
}

std::string Rule::identity() const {
  std::string out = spec_.name;
  out += '{';
  for (const auto& [k, v] : labels_) {
    out += k;
    out += '\xfe';
    out += v;
    out += '\xff';
  }
  out += '}';
  return out;
}

void Rule::set_health(RuleHealth h, std::string last_error) {
  std::lock_guard lock(mu_);
  status_.health = h;
  status_.last_error = std::move(last_error);
}

void Rule::set_evaluation(int64_t started_ms, double duration_s) {
  std::lock_guard lock(mu_);
  status_.last_evaluation_ms = started_ms;
  status_.evaluation_time_s = duration_s;
}

RuleStatus Rule::status() const {
  std::lock_guard lock(mu_);
  return status_;
}

}  // namespace llmon::rules
