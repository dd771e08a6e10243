// Shared helpers for the rule-evaluation tests (tests/rules/eval_*_test.cpp):
// a real tsdb::Head + promql::Engine, series loaded in promtool's notation,
// rule/group specs built from literal exprs, PromQL read-back as text.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.h"
#include "notify/alert.h"
#include "promql/engine.h"
#include "promql/parser.h"
#include "promql/series_notation.h"
#include "rules/group.h"
#include "rules/rule_types.h"
#include "tsdb/head.h"

namespace llmon::rules::testing {

inline constexpr int64_t kMin = 60'000;

inline std::shared_ptr<const promql::Expr> parse_expr(const std::string& expr) {
  auto p = promql::parse(expr);
  EXPECT_TRUE(p.ok()) << expr << ": " << p.error.to_string(expr);
  return std::shared_ptr<const promql::Expr>(std::move(p.expr));
}

inline RuleSpec record_rule(const std::string& name, const std::string& expr, StringPairs labels = {}) {
  RuleSpec r;
  r.kind = RuleSpec::Kind::kRecording;
  r.name = name;
  r.expr = expr;
  r.parsed = parse_expr(expr);
  r.labels = std::move(labels);
  return r;
}

inline RuleSpec alert_rule(const std::string& name, const std::string& expr, int64_t for_ms = 0,
                           StringPairs labels = {}, StringPairs annotations = {}, int64_t keep_firing_for_ms = 0) {
  RuleSpec r;
  r.kind = RuleSpec::Kind::kAlerting;
  r.name = name;
  r.expr = expr;
  r.parsed = parse_expr(expr);
  r.for_ms = for_ms;
  r.keep_firing_for_ms = keep_firing_for_ms;
  r.labels = std::move(labels);
  r.annotations = std::move(annotations);
  return r;
}

inline GroupSpec group_spec(const std::string& name, std::vector<RuleSpec> rules, int64_t interval_ms = kMin,
                            const std::string& file = "rules.yml") {
  GroupSpec g;
  g.name = name;
  g.file = file;
  g.interval_ms = interval_ms;
  g.rules = std::move(rules);
  return g;
}

// A store, an engine, a hand-driven clock and a notification sink.
class EvalEnv {
 public:
  EvalEnv() : engine_(head_, promql::EngineOptions{}) {}

  tsdb::Head& head() { return head_; }
  promql::Engine& engine() { return engine_; }
  base::ManualClock& clock() { return clock_; }

  // Loads `series values` (promtool input_series notation): point i at
  // start_ms + i * step_ms. `stale` appends a staleness marker.
  void load(const std::string& line, int64_t step_ms = kMin, int64_t start_ms = 0) {
    auto d = promql::parse_series_description(line);
    ASSERT_TRUE(d) << line << ": " << d.error();
    auto app = head_.appender();
    for (size_t i = 0; i < d->values.size(); ++i) {
      if (d->values[i].omitted) continue;
      auto r = app->append(0, d->labels, start_ms + static_cast<int64_t>(i) * step_ms, d->values[i].value);
      ASSERT_TRUE(r) << r.error();
    }
    ASSERT_TRUE(app->commit());
  }

  void append(const std::string& series, int64_t t_ms, double v) {
    auto l = promql::parse_series_labels(series);
    ASSERT_TRUE(l) << l.error();
    auto app = head_.appender();
    ASSERT_TRUE(app->append(0, *l, t_ms, v));
    ASSERT_TRUE(app->commit());
  }

  GroupOptions options() {
    GroupOptions o;
    o.storage = &head_;
    o.engine = &engine_;
    o.clock = &clock_;
    o.notify = [this](std::vector<notify::Alert> alerts) {
      std::lock_guard lock(mu_);
      sent_.push_back(std::move(alerts));
    };
    return o;
  }

  std::unique_ptr<Group> make_group(GroupSpec spec, GroupOptions opts) {
    auto g = Group::create(std::move(spec), std::move(opts));
    EXPECT_TRUE(g) << g.error();
    return g ? std::move(*g) : nullptr;
  }
  std::unique_ptr<Group> make_group(GroupSpec spec) { return make_group(std::move(spec), options()); }

  // Batches handed to the notify callback so far (and clears them).
  std::vector<std::vector<notify::Alert>> take_sent() {
    std::lock_guard lock(mu_);
    return std::exchange(sent_, {});
  }

  // An instant query's result as sorted lines `{labels} value`; "error: ..."
  // on failure.
  std::string query(const std::string& q, int64_t t_ms) {
    auto r = engine_.instant(q, t_ms);
    if (!r.ok()) return "error: " + r.error->message;
    std::vector<std::string> lines;
    if (auto* v = std::get_if<promql::Vector>(&r.value)) {
      for (const auto& s : *v) lines.push_back(s.labels.to_string() + " " + fmt(s.v));
    } else if (auto* s = std::get_if<promql::Scalar>(&r.value)) {
      lines.push_back("scalar " + fmt(s->v));
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
    return out;
  }

  // The raw samples of exactly `series` in [mint, maxt].
  std::vector<model::Sample> raw(const std::string& series, int64_t mint, int64_t maxt) {
    std::vector<model::Sample> out;
    auto l = promql::parse_series_labels(series);
    EXPECT_TRUE(l) << l.error();
    if (!l) return out;
    std::vector<model::Matcher> m;
    for (const auto& p : l->pairs()) m.push_back({model::Matcher::Type::kEq, p.name, p.value});
    auto q = head_.querier(mint, maxt);
    EXPECT_TRUE(q);
    auto set = (*q)->select(mint, maxt, m);
    while (set->next()) {
      if (!(set->at().labels() == *l)) continue;
      auto it = set->at().iterator();
      while (it->next()) out.push_back(it->at());
    }
    return out;
  }

  static std::string fmt(double v) {
    if (model::is_stale(v)) return "stale";
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
  }

 private:
  tsdb::Head head_;
  promql::Engine engine_;
  base::ManualClock clock_{0};
  std::mutex mu_;
  std::vector<std::vector<notify::Alert>> sent_;
};

}  // namespace llmon::rules::testing
