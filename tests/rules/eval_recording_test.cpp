// Recording rules evaluated by a Group against a real Head + Engine:
// renaming and labels, staleness, errors, limit, rule order, health.
#include <gtest/gtest.h>

#include "rules/eval_fixture.h"
#include "rules/group.h"
#include "rules/recording_rule.h"

namespace llmon::rules {
namespace {

using testing::EvalEnv;
using testing::group_spec;
using testing::kMin;
using testing::record_rule;

TEST(EvalRecording, RenamesAppliesLabelsAndAppends) {
  EvalEnv env;
  env.load(R"(x{job="a",instance="1"} 1 2 3)");
  env.load(R"(x{job="a",instance="2"} 10 20 30)");
  env.load(R"(x{job="b",instance="1"} 5 5 5)");
  auto g =
      env.make_group(group_spec("g", {record_rule("job:x:sum", "sum by (job) (x)", {{"env", "prod"}}),
                                      record_rule("x:relabelled", R"(x{job="b"})", {{"instance", ""}, {"job", "c"}})}));
  g->eval(2 * kMin);
  EXPECT_EQ(env.query("job:x:sum", 2 * kMin),
            "{__name__=\"job:x:sum\", env=\"prod\", job=\"a\"} 33\n"
            "{__name__=\"job:x:sum\", env=\"prod\", job=\"b\"} 5");
  // An empty label value removes the label; a rule label overrides the sample's.
  EXPECT_EQ(env.query("x:relabelled", 2 * kMin), "{__name__=\"x:relabelled\", job=\"c\"} 5");
  // Samples are stamped with the evaluation time.
  auto raw = env.raw(R"(job:x:sum{env="prod",job="a"})", 0, 10 * kMin);
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(raw[0].t_ms, 2 * kMin);
  EXPECT_EQ(raw[0].v, 33);
  auto snap = g->snapshot();
  ASSERT_EQ(snap.rules.size(), 2u);
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kOk);
  EXPECT_EQ(snap.rules[0].query, "sum by (job) (x)");
  EXPECT_EQ(snap.counters.evaluations_total, 2u);
  EXPECT_EQ(snap.counters.last_samples, 3u);
  EXPECT_EQ(*snap.counters.last_eval_timestamp_ms, 2 * kMin);
}

TEST(EvalRecording, ScalarResultBecomesOneSeries) {
  EvalEnv env;
  auto g = env.make_group(group_spec("g", {record_rule("answer", "scalar(vector(42))")}));
  g->eval(kMin);
  EXPECT_EQ(env.query("answer", kMin), "{__name__=\"answer\"} 42");
}

TEST(EvalRecording, StringResultIsAnError) {
  EvalEnv env;
  auto g = env.make_group(group_spec("g", {record_rule("s", "\"text\"")}));
  g->eval(kMin);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_EQ(snap.rules[0].last_error, "rule result is not a vector or scalar");
}

TEST(EvalRecording, SeriesThatDisappearGetAStalenessMarker) {
  EvalEnv env;
  env.load(R"(x{i="1"} 1 1 1 1)");
  env.load(R"(x{i="2"} 1 9 1 1)");
  auto g = env.make_group(group_spec("g", {record_rule("big", "x > 5")}));
  g->eval(0);
  g->eval(kMin);
  EXPECT_EQ(env.query("big", kMin), "{__name__=\"big\", i=\"2\"} 9");
  g->eval(2 * kMin);
  // Without the marker the 1m sample would still be seen (5m lookback).
  EXPECT_EQ(env.query("big", 2 * kMin), "");
  auto raw = env.raw(R"(big{i="2"})", 0, 10 * kMin);
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw[1].t_ms, 2 * kMin);
  EXPECT_TRUE(model::is_stale(raw[1].v));
  // The marker is written once; the series comes back normally.
  g->eval(3 * kMin);
  EXPECT_EQ(env.raw(R"(big{i="2"})", 0, 10 * kMin).size(), 2u);
}

TEST(EvalRecording, DuplicateLabelsetAfterRelabelIsAnError) {
  EvalEnv env;
  env.load(R"(x{a="1"} 1)");
  env.load(R"(x{a="2"} 2)");
  auto g = env.make_group(group_spec("g", {record_rule("r", "x", {{"a", "same"}}), record_rule("ok", "vector(1)")}));
  g->eval(0);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_EQ(snap.rules[0].last_error, "vector contains metrics with the same labelset after applying rule labels");
  EXPECT_EQ(env.query("r", 0), "");
  // The group went on.
  EXPECT_EQ(snap.rules[1].health, RuleHealth::kOk);
  EXPECT_EQ(env.query("ok", 0), "{__name__=\"ok\"} 1");
  EXPECT_EQ(snap.counters.evaluation_failures_total, 1u);
}

TEST(EvalRecording, LimitDiscardsEverything) {
  EvalEnv env;
  env.load(R"(x{a="1"} 1)");
  env.load(R"(x{a="2"} 2)");
  auto spec = group_spec("g", {record_rule("r", "x")});
  spec.limit = 1;
  auto g = env.make_group(spec);
  g->eval(0);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_EQ(snap.rules[0].last_error, "exceeded limit of 1 with 2 series");
  EXPECT_EQ(env.query("r", 0), "");
  spec.limit = 2;
  auto g2 = env.make_group(spec);
  g2->eval(0);
  EXPECT_EQ(g2->snapshot().rules[0].health, RuleHealth::kOk);
}

TEST(EvalRecording, LaterRulesSeeEarlierOutputAtTheSameTimestamp) {
  EvalEnv env;
  env.load("x 3");
  auto g = env.make_group(group_spec("g", {record_rule("first", "x * 2"), record_rule("second", "first + 1")}));
  g->eval(0);
  EXPECT_EQ(env.query("second", 0), "{__name__=\"second\"} 7");
}

TEST(EvalRecording, FailedEvaluationKeepsSeriesAndWritesNoMarker) {
  EvalEnv env;
  env.load(R"(x{job="a",i="1"} 1 1 1)");
  env.load(R"(y{job="a"} 1 1 1)");
  // At 1m a second x series with job="a" makes the one-to-one match fail.
  env.append(R"(x{job="a",i="2"})", kMin, 1);
  auto g = env.make_group(group_spec("g", {record_rule("r", "x + on(job) y"), record_rule("after", "vector(1)")}));
  g->eval(0);
  EXPECT_EQ(g->snapshot().rules[0].health, RuleHealth::kOk);
  g->eval(kMin);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_NE(snap.rules[0].last_error.find("many-to-one matching must be explicit (group_left/group_right)"),
            std::string::npos)
      << snap.rules[0].last_error;
  EXPECT_EQ(snap.rules[1].health, RuleHealth::kOk);
  // No staleness marker for the 0m output: the failed evaluation wrote nothing.
  auto raw = env.raw(R"(r{job="a"})", 0, 10 * kMin);
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(raw[0].t_ms, 0);
}

TEST(EvalRecording, AppendErrorsMakeTheRuleUnhealthy) {
  EvalEnv env;
  env.append("r", 5 * kMin, 1);  // newer than the evaluation: out of order
  auto g = env.make_group(group_spec("g", {record_rule("r", "vector(2)")}));
  g->eval(kMin);
  auto snap = g->snapshot();
  EXPECT_EQ(snap.rules[0].health, RuleHealth::kErr);
  EXPECT_EQ(snap.rules[0].last_error, "out of order sample");
}

TEST(EvalRecording, QueryOffsetShiftsQueryAndStamps) {
  EvalEnv env;
  env.load("x 1 2 3 4");
  auto spec = group_spec("g", {record_rule("r", "x")});
  spec.query_offset_ms = kMin;
  auto g = env.make_group(spec);
  g->eval(3 * kMin);
  auto raw = env.raw("r", 0, 10 * kMin);
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(raw[0].t_ms, 2 * kMin);
  EXPECT_EQ(raw[0].v, 3);
}

TEST(EvalRecording, GroupLabelsAreAddedUnderRuleLabels) {
  EvalEnv env;
  auto spec = group_spec("g", {record_rule("r", "vector(1)", {{"team", "rule"}})});
  spec.labels = {{"team", "group"}, {"site", "x"}};
  auto g = env.make_group(spec);
  g->eval(0);
  EXPECT_EQ(env.query("r", 0), "{__name__=\"r\", site=\"x\", team=\"rule\"} 1");
}

TEST(EvalRecording, HealthUnknownBeforeFirstEvaluation) {
  EvalEnv env;
  env.clock().set_ms(123'000);
  auto g = env.make_group(group_spec("g", {record_rule("r", "vector(1)")}));
  auto before = g->snapshot();
  EXPECT_EQ(before.rules[0].health, RuleHealth::kUnknown);
  EXPECT_FALSE(before.rules[0].last_evaluation_ms);
  g->eval(0);
  auto after = g->snapshot();
  EXPECT_EQ(after.rules[0].health, RuleHealth::kOk);
  EXPECT_EQ(after.rules[0].last_evaluation_ms, 123'000);
  EXPECT_EQ(after.last_evaluation_ms, 123'000);
  EXPECT_GE(after.rules[0].evaluation_time_s, 0.0);
}

}  // namespace
}  // namespace llmon::rules
