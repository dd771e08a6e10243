// The alert state machine evaluated by a Group against a real Head + Engine.
// Expected ALERTS/ALERTS_FOR_STATE timelines and template texts were taken
// from `promtool test rules` (Prometheus 2.42) on the same input.
#include <gtest/gtest.h>

#include "rules/alerting_rule.h"
#include "rules/eval_fixture.h"
#include "rules/group.h"

namespace llmon::rules {
namespace {

using testing::alert_rule;
using testing::EvalEnv;
using testing::group_spec;
using testing::kMin;

// pending at 0, firing at 2m (for: 2m), absent 4-6m but kept firing
// (keep_firing_for: 3m), back at 7m (which resets keep_firing_since), absent
// from 8m: kept until 10m, resolved at 11m; a new pending alert at 14m
// (ActiveAt 840 s) that fires at 16m.
TEST(EvalAlerting, StateMachineMatchesPromtool) {
  EvalEnv env;
  env.load(R"(x{job="j"} 1 1 1 1 0 0 0 1 0 0 0 0 0 0 1 _ 1)");
  auto g = env.make_group(group_spec("g", {alert_rule("A", "x > 0", 2 * kMin, {}, {{"v", "{{ $value }}"}}, 3 * kMin)}));
  const std::string pending = R"({__name__="ALERTS", alertname="A", alertstate="pending", job="j"} 1)";
  const std::string firing = R"({__name__="ALERTS", alertname="A", alertstate="firing", job="j"} 1)";
  const std::vector<std::string> want_alerts = {pending, pending, firing,  firing,  firing, firing,
                                                firing,  firing,  firing,  firing,  firing, "",
                                                "",      "",      pending, pending, firing, firing};
  const std::vector<std::string> want_for = {"0", "0", "0", "0", "0", "0",   "0",   "0",   "0",
                                             "0", "0", "",  "",  "",  "840", "840", "840", "840"};
  for (int m = 0; m < static_cast<int>(want_alerts.size()); ++m) {
    g->eval(m * kMin);
    SCOPED_TRACE("at " + std::to_string(m) + "m");
    EXPECT_EQ(env.query("ALERTS", m * kMin), want_alerts[m]);
    std::string fs = env.query("ALERTS_FOR_STATE", m * kMin);
    EXPECT_EQ(fs, want_for[m].empty() ? "" : R"({__name__="ALERTS_FOR_STATE", alertname="A", job="j"} )" + want_for[m]);
    auto all = g->alerts_of(0, true);
    if (m == 5) {
      ASSERT_EQ(all.size(), 1u);
      EXPECT_EQ(all[0].state, AlertState::kFiring);
      EXPECT_EQ(all[0].keep_firing_since_ms, 4 * kMin);
      EXPECT_EQ(all[0].fired_at_ms, 2 * kMin);
      EXPECT_EQ(all[0].value, 1);  // the last value seen (3m)
    }
    if (m == 7) {
      ASSERT_EQ(all.size(), 1u);
      EXPECT_FALSE(all[0].keep_firing_since_ms);
    }
    if (m == 11) {
      ASSERT_EQ(all.size(), 1u);
      EXPECT_EQ(all[0].state, AlertState::kInactive);
      EXPECT_TRUE(g->alerts_of(0, false).empty());
      EXPECT_EQ(g->snapshot().rules[0].state, AlertState::kInactive);
    }
    if (m == 14) {
      // The resolved alert was replaced by a new pending one.
      ASSERT_EQ(all.size(), 1u);
      EXPECT_EQ(all[0].state, AlertState::kPending);
      EXPECT_EQ(all[0].active_at_ms, 14 * kMin);
      EXPECT_FALSE(all[0].fired_at_ms);
    }
  }
  // Staleness markers: the pending series ended at 2m, the firing one at 11m.
  auto p = env.raw(R"(ALERTS{alertname="A", alertstate="pending", job="j"})", 0, 20 * kMin);
  ASSERT_EQ(p.size(), 6u);  // 0, 1, stale at 2; 14, 15, stale at 16
  EXPECT_TRUE(model::is_stale(p[2].v));
  EXPECT_EQ(p[2].t_ms, 2 * kMin);
  EXPECT_TRUE(model::is_stale(p[5].v));
  auto f = env.raw(R"(ALERTS{alertname="A", alertstate="firing", job="j"})", 0, 12 * kMin);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f.back().t_ms, 11 * kMin);
  EXPECT_TRUE(model::is_stale(f.back().v));
}

TEST(EvalAlerting, PendingAlertThatDisappearsIsDropped) {
  EvalEnv env;
  env.load("x 1 1 _ _ _ _ _ _ 1");
  auto g = env.make_group(group_spec("g", {alert_rule("A", "x > 0", 10 * kMin)}));
  for (int m = 0; m <= 6; ++m) g->eval(m * kMin);  // 1m sample visible until 6m (lookback)
  EXPECT_EQ(g->alerts_of(0, true).size(), 1u);
  g->eval(7 * kMin);
  EXPECT_TRUE(g->alerts_of(0, true).empty());
  g->eval(8 * kMin);
  auto a = g->alerts_of(0, false);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].active_at_ms, 8 * kMin);  // `for` starts over
}

TEST(EvalAlerting, ResolvedAlertsAreKeptFifteenMinutes) {
  EvalEnv env;
  env.load("x 1 1 stale");
  auto g = env.make_group(group_spec("g", {alert_rule("A", "x > 0")}));
  g->eval(0);
  EXPECT_EQ(g->alerts_of(0, false).at(0).state, AlertState::kFiring);  // for: 0 fires at once
  g->eval(kMin);
  g->eval(2 * kMin);  // resolved at 2m
  for (int m = 3; m <= 17; ++m) {
    g->eval(m * kMin);
    ASSERT_EQ(g->alerts_of(0, true).size(), 1u) << m;
    EXPECT_TRUE(g->alerts_of(0, false).empty());
  }
  g->eval(18 * kMin);  // 16m after resolving: dropped
  EXPECT_TRUE(g->alerts_of(0, true).empty());
}

TEST(EvalAlerting, FlappingAlertStartsOverEachTime) {
  EvalEnv env;
  env.load("x 1 stale 1 stale 1 1 1");
  auto g = env.make_group(group_spec("g", {alert_rule("A", "x > 0", 2 * kMin)}));
  std::vector<std::string> states;
  for (int m = 0; m <= 6; ++m) {
    g->eval(m * kMin);
    auto a = g->alerts_of(0, false);
    states.push_back(a.empty() ? "-" : std::string(alert_state_text(a[0].state)));
  }
  EXPECT_EQ(states, (std::vector<std::string>{"pending", "-", "pending", "-", "pending", "pending", "firing"}));
  EXPECT_EQ(g->alerts_of(0, false)[0].active_at_ms, 4 * kMin);
}

TEST(EvalAlerting, TemplatesMatchPromtool) {
  EvalEnv env;
  env.load(R"(x{instance="a"} 3)");
  env.load(R"(x{instance="b"} 7)");
  env.load("y 42");
  auto opts = env.options();
  opts.external_labels = {{"site", "lab"}};
  opts.external_url = "http://llmon.example:9090";
  auto g = env.make_group(group_spec("g", {alert_rule("T", "x > 0", 0,
                                                      {{"severity", "{{ if gt $value 5.0 }}high{{ else }}low{{ end }}"},
                                                       {"alertname", "override"},
                                                       {"gone", "{{ $labels.nothing }}"}},
                                                      {{"summary",
                                                        "{{ $labels.instance }} at {{ $externalLabels.site }} via "
                                                        "{{ $externalURL }} is {{ $value }}"},
                                                       {"q", "{{ with query \"y\" }}{{ . | first | value }}{{ end }}"},
                                                       {"exec", "{{ .Nope }}"},
                                                       {"badq", "{{ query \"sum(\" }}"}})}),
                          opts);
  g->eval(0);
  auto a = g->alerts_of(0, false);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].labels, (notify::LabelPairs{{"alertname", "T"}, {"instance", "a"}, {"severity", "low"}}));
  EXPECT_EQ(a[1].labels, (notify::LabelPairs{{"alertname", "T"}, {"instance", "b"}, {"severity", "high"}}));
  const std::string exec_err =
      "<error expanding template: error executing template __alert_T: template: __alert_T:1:115: executing "
      "\"__alert_T\" at <.Nope>: can't evaluate field Nope in type struct { Labels map[string]string; "
      "ExternalLabels map[string]string; ExternalURL string; Value float64 }>";
  const std::string badq_err =
      "<error expanding template: error executing template __alert_T: template: __alert_T:1:115: executing "
      "\"__alert_T\" at <query \"sum(\">: error calling query: 1:5: parse error: unclosed left parenthesis>";
  EXPECT_EQ(a[0].annotations, (notify::LabelPairs{{"badq", badq_err},
                                                  {"exec", exec_err},
                                                  {"q", "42"},
                                                  {"summary", "a at lab via http://llmon.example:9090 is 3"}}));
  EXPECT_EQ(a[1].annotations.back().second, "b at lab via http://llmon.example:9090 is 7");
  // ALERTS starts from the rule's labels as written: the label whose
  // template expanded to "" keeps its template text there (as Prometheus).
  EXPECT_EQ(env.query("ALERTS", 0),
            "{__name__=\"ALERTS\", alertname=\"T\", alertstate=\"firing\", gone=\"{{ $labels.nothing }}\", "
            "instance=\"a\", severity=\"low\"} 1\n"
            "{__name__=\"ALERTS\", alertname=\"T\", alertstate=\"firing\", gone=\"{{ $labels.nothing }}\", "
            "instance=\"b\", severity=\"high\"} 1");
  EXPECT_EQ(g->snapshot().rules[0].health, RuleHealth::kOk);  // template errors do not fail the rule
}

TEST(EvalAlerting, UnparsableTemplateExpandsToTheParseError) {
  EvalEnv env;
  env.load("x 1");
  auto g = env.make_group(group_spec("g", {alert_rule("P", "x", 0, {}, {{"s", "{{ oops"}})}));
  g->eval(0);
  auto a = g->alerts_of(0, false);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].annotations[0].second.rfind("<error expanding template: error parsing template __alert_P: ", 0), 0u)
      << a[0].annotations[0].second;
}

TEST(EvalAlerting, TemplateExternalUrlFunctions) {
  EvalEnv env;
  env.load("x 1");
  auto spec = group_spec("g", {alert_rule("U", "x", 0, {}, {{"u", "{{ externalURL }}"}, {"p", "{{ pathPrefix }}"}})});
  auto opts = env.options();
  opts.external_url = "http://h:9090/prom";
  opts.template_external_url = "http://h:9090/prom";
  auto g = env.make_group(spec, opts);
  g->eval(0);
  EXPECT_EQ(g->alerts_of(0, false).at(0).annotations,
            (notify::LabelPairs{{"p", "/prom"}, {"u", "http://h:9090/prom"}}));
}

TEST(EvalAlerting, DuplicateLabelsetIsAnErrorAndKeepsState) {
  EvalEnv env;
  env.load(R"(y{instance="a"} 1 1)");
  auto g = env.make_group(group_spec("g", {alert_rule("Dup", "y", 0, {{"instance", "same"}})}));
  g->eval(0);
  ASSERT_EQ(g->alerts_of(0, false).size(), 1u);
  env.load(R"(y{instance="b"} _ 1)");
  g->eval(kMin);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_EQ(snap.rules[0].last_error, "vector contains metrics with the same labelset after applying alert labels");
  // The earlier alert is untouched.
  ASSERT_EQ(g->alerts_of(0, false).size(), 1u);
  EXPECT_EQ(g->alerts_of(0, false)[0].active_at_ms, 0);
}

TEST(EvalAlerting, LimitDropsAllAlerts) {
  EvalEnv env;
  env.load(R"(x{i="1"} 1 1 1)");
  env.load(R"(x{i="2"} _ 1 1)");
  auto spec = group_spec("g", {alert_rule("L", "x > 0", 5 * kMin)});
  spec.limit = 1;
  auto g = env.make_group(spec);
  g->eval(0);
  EXPECT_EQ(g->snapshot().rules[0].health, RuleHealth::kOk);
  g->eval(kMin);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_EQ(snap.rules[0].last_error, "exceeded limit of 1 with 2 alerts");
  EXPECT_TRUE(g->alerts_of(0, true).empty());
}

TEST(EvalAlerting, QueryErrorMakesRuleUnhealthyAndGroupGoesOn) {
  EvalEnv env;
  env.load(R"(x{job="a",i="1"} 1)");
  env.load(R"(x{job="a",i="2"} 1)");
  env.load(R"(y{job="a"} 1)");
  auto g = env.make_group(group_spec("g", {alert_rule("Bad", "x + on(job) y"), alert_rule("Good", "y > 0")}));
  g->eval(0);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_FALSE(snap.rules[0].last_error.empty());
  EXPECT_EQ(snap.rules[1].health, RuleHealth::kOk);
  EXPECT_EQ(snap.rules[1].alerts.size(), 1u);
  EXPECT_EQ(snap.counters.evaluation_failures_total, 1u);
  EXPECT_EQ(snap.counters.evaluations_total, 2u);
}

TEST(EvalAlerting, UnrestoredRuleWritesNoSeries) {
  EvalEnv env;
  env.load("x 1 1");
  auto opts = env.options();
  opts.restored = false;
  auto g = env.make_group(group_spec("g", {alert_rule("A", "x")}), opts);
  g->eval(0);
  EXPECT_EQ(env.query("ALERTS", 0), "");
  EXPECT_EQ(g->alerts_of(0, false).size(), 1u);
  g->set_restored(true);
  g->eval(kMin);
  EXPECT_EQ(env.query("ALERTS", kMin), R"({__name__="ALERTS", alertname="A", alertstate="firing"} 1)");
}

// needsSending with a 1m interval and a 1m resend delay: firing alerts go out
// every other evaluation (LastSentAt + delay must be strictly before ts), a
// resolution at once, then resolved alerts every other evaluation until
// they are dropped 15m later.
TEST(EvalAlerting, SendingFollowsNeedsSending) {
  EvalEnv env;
  env.load(R"(x{b="2",a="1"} 1 1 1 1 1 stale)");
  auto opts = env.options();
  opts.external_labels = {{"site", "lab"}, {"a", "ignored"}};
  opts.external_url = "http://h:9090";
  auto g = env.make_group(group_spec("g", {alert_rule("S", "x > 0", 0, {}, {{"d", "{{ $value }}"}})}), opts);
  std::vector<int> sent_at;
  for (int m = 0; m <= 22; ++m) {
    g->eval(m * kMin);
    auto batches = env.take_sent();
    if (batches.empty()) continue;
    ASSERT_EQ(batches.size(), 1u);
    ASSERT_EQ(batches[0].size(), 1u);
    sent_at.push_back(m);
    const notify::Alert& a = batches[0][0];
    EXPECT_EQ(a.labels, (notify::LabelPairs{{"a", "1"}, {"alertname", "S"}, {"b", "2"}, {"site", "lab"}}));
    EXPECT_EQ(a.annotations, (notify::LabelPairs{{"d", "1"}}));
    EXPECT_EQ(a.starts_at_ms, 0);
    EXPECT_EQ(a.generator_url, "http://h:9090/graph?g0.expr=x+%3E+0&g0.tab=1");
    if (m < 5) {
      EXPECT_EQ(a.ends_at_ms, m * kMin + 4 * kMin);  // ValidUntil
    } else {
      EXPECT_EQ(a.ends_at_ms, 5 * kMin);  // ResolvedAt
    }
  }
  EXPECT_EQ(sent_at, (std::vector<int>{0, 2, 4, 5, 7, 9, 11, 13, 15, 17, 19}));
}

TEST(EvalAlerting, ValidUntilUsesTheLargerOfIntervalAndResendDelay) {
  EvalEnv env;
  env.load("x 1");
  auto g = env.make_group(group_spec("g", {alert_rule("S", "x")}, 5 * kMin));
  g->eval(0);
  auto b = env.take_sent();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0][0].ends_at_ms, 20 * kMin);
  EXPECT_FALSE(b[0][0].resolved_at(19 * kMin));
}

TEST(EvalAlerting, PendingAlertsAreNeverSent) {
  EvalEnv env;
  env.load("x 1 1 1");
  auto g = env.make_group(group_spec("g", {alert_rule("S", "x", 2 * kMin)}));
  g->eval(0);
  g->eval(kMin);
  EXPECT_TRUE(env.take_sent().empty());
  g->eval(2 * kMin);
  auto b = env.take_sent();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0][0].starts_at_ms, 2 * kMin);  // FiredAt, not ActiveAt
}

TEST(EvalAlerting, SnapshotListsRuleAndActiveAlerts) {
  EvalEnv env;
  env.load(R"(x{i="1"} 5)");
  auto g = env.make_group(group_spec(
      "g", {alert_rule("A", "x  >  1", 3 * kMin, {{"z", "1"}, {"sev", "page"}}, {{"b", "B"}, {"a", "A"}}, kMin)}));
  g->eval(0);
  auto s = g->snapshot().rules.at(0);
  EXPECT_EQ(s.kind, RuleSpec::Kind::kAlerting);
  EXPECT_EQ(s.name, "A");
  EXPECT_EQ(s.query, "x > 1");
  EXPECT_EQ(s.for_ms, 3 * kMin);
  EXPECT_EQ(s.keep_firing_for_ms, kMin);
  EXPECT_EQ(s.labels, (StringPairs{{"sev", "page"}, {"z", "1"}}));
  EXPECT_EQ(s.annotations, (StringPairs{{"a", "A"}, {"b", "B"}}));
  EXPECT_EQ(s.state, AlertState::kPending);
  ASSERT_EQ(s.alerts.size(), 1u);
  EXPECT_EQ(s.alerts[0].value, 5);
  EXPECT_EQ(s.alerts[0].active_at_ms, 0);
  EXPECT_EQ(s.alerts[0].labels, (notify::LabelPairs{{"alertname", "A"}, {"i", "1"}, {"sev", "page"}, {"z", "1"}}));
}

}  // namespace
}  // namespace llmon::rules
