// /api/v1/rules and /api/v1/alerts bytes, compared with what Prometheus 2.42
// answered for the same rules (captured from a real Prometheus 2.42 on
// 2026-11-30 with the rule file in the comments; times made fixed).
#include <gtest/gtest.h>

#include "api/rules_api.h"

namespace llmon::api {
namespace {

using rules::AlertState;
using rules::RuleHealth;
using rules::RuleSpec;

// groups: - name: g1, interval: 1s, rules:
//   - record: job:up:sum, expr: sum(up), labels: {tier: x}
//   - alert: AlwaysOn, expr: vector(3.5) > 1, for: 2s, keep_firing_for: 1m,
//     labels: {severity: warning}, annotations: {summary: "value {{ $value }}"}
//   - alert: Never, expr: vector(0) > 1
//   - alert: Broken (many-to-one matching error)
std::vector<rules::GroupSnapshot> prometheus_example() {
  rules::GroupSnapshot g;
  g.name = "g1";
  g.file = "rules.yml";
  g.interval_ms = 1000;
  g.evaluation_time_s = 0.002193856;
  g.last_evaluation_ms = 1796009477158;
  rules::RuleSnapshot rec;
  rec.kind = RuleSpec::Kind::kRecording;
  rec.name = "job:up:sum";
  rec.query = "sum(up)";
  rec.labels = {{"tier", "x"}};
  rec.health = RuleHealth::kOk;
  rec.evaluation_time_s = 0.001170423;
  rec.last_evaluation_ms = 1796009477158;
  g.rules.push_back(rec);
  rules::RuleSnapshot on;
  on.kind = RuleSpec::Kind::kAlerting;
  on.name = "AlwaysOn";
  on.query = "vector(3.5) > 1";
  on.for_ms = 2000;
  on.keep_firing_for_ms = 60000;
  on.labels = {{"severity", "warning"}};
  on.annotations = {{"summary", "value {{ $value }}"}};
  rules::AlertSnapshot a;
  a.labels = {{"alertname", "AlwaysOn"}, {"severity", "warning"}};
  a.annotations = {{"summary", "value 3.5"}};
  a.state = AlertState::kFiring;
  a.active_at_ms = 1796009471151;
  a.value = 3.5;
  on.alerts.push_back(a);
  on.state = AlertState::kFiring;
  on.health = RuleHealth::kOk;
  on.evaluation_time_s = 0.000496357;
  on.last_evaluation_ms = 1796009477159;
  g.rules.push_back(on);
  rules::RuleSnapshot never;
  never.kind = RuleSpec::Kind::kAlerting;
  never.name = "Never";
  never.query = "vector(0) > 1";
  never.health = RuleHealth::kOk;
  never.evaluation_time_s = 0.000051808;
  never.last_evaluation_ms = 1796009477160;
  g.rules.push_back(never);
  rules::RuleSnapshot broken = never;
  broken.name = "Broken";
  broken.query = "x + on () vector(1)";
  broken.health = RuleHealth::kErr;
  broken.last_error = "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)";
  g.rules.push_back(broken);
  return {g};
}

TEST(RulesApi, RulesLikePrometheus) {
  EXPECT_EQ(encode_rules_data(prometheus_example(), ""),
            R"j({"groups":[{"name":"g1","file":"rules.yml","rules":[)j"
            R"j({"name":"job:up:sum","query":"sum(up)","labels":{"tier":"x"},"health":"ok","evaluationTime":0.001170423,)j"
            R"j("lastEvaluation":"2026-11-30T03:31:17.158Z","type":"recording"},)j"
            R"j({"state":"firing","name":"AlwaysOn","query":"vector(3.5) \u003e 1","duration":2,"keepFiringFor":60,)j"
            R"j("labels":{"severity":"warning"},"annotations":{"summary":"value {{ $value }}"},"alerts":[)j"
            R"j({"labels":{"alertname":"AlwaysOn","severity":"warning"},"annotations":{"summary":"value 3.5"},)j"
            R"j("state":"firing","activeAt":"2026-11-30T03:31:11.151Z","value":"3.5e+00"}],"health":"ok",)j"
            R"j("evaluationTime":0.000496357,"lastEvaluation":"2026-11-30T03:31:17.159Z","type":"alerting"},)j"
            R"j({"state":"inactive","name":"Never","query":"vector(0) \u003e 1","duration":0,"keepFiringFor":0,)j"
            R"j("labels":{},"annotations":{},"alerts":[],"health":"ok","evaluationTime":0.000051808,)j"
            R"j("lastEvaluation":"2026-11-30T03:31:17.16Z","type":"alerting"},)j"
            R"j({"state":"inactive","name":"Broken","query":"x + on () vector(1)","duration":0,"keepFiringFor":0,)j"
            R"j("labels":{},"annotations":{},"alerts":[],"health":"err","lastError":"multiple matches for labels: )j"
            R"j(many-to-one matching must be explicit (group_left/group_right)","evaluationTime":0.000051808,)j"
            R"j("lastEvaluation":"2026-11-30T03:31:17.16Z","type":"alerting"}],)j"
            R"j("interval":1,"limit":0,"evaluationTime":0.002193856,"lastEvaluation":"2026-11-30T03:31:17.158Z"}]})j");
}

TEST(RulesApi, TypeFilterDropsEmptyGroups) {
  auto groups = prometheus_example();
  std::string rec = encode_rules_data(groups, "record");
  EXPECT_NE(rec.find("job:up:sum"), std::string::npos);
  EXPECT_EQ(rec.find("AlwaysOn"), std::string::npos);
  groups[0].rules.erase(groups[0].rules.begin());
  EXPECT_EQ(encode_rules_data(groups, "record"), R"j({"groups":[]})j");
  EXPECT_NE(encode_rules_data(groups, "alert").find("\"Never\""), std::string::npos);
}

TEST(RulesApi, AlertsListsActiveAlerts) {
  EXPECT_EQ(encode_alerts_data(prometheus_example()),
            R"j({"alerts":[{"labels":{"alertname":"AlwaysOn","severity":"warning"},"annotations":{"summary":)j"
            R"j("value 3.5"},"state":"firing","activeAt":"2026-11-30T03:31:11.151Z","value":"3.5e+00"}]})j");
  EXPECT_EQ(encode_alerts_data({}), R"j({"alerts":[]})j");
}

TEST(RulesApi, NeverEvaluatedIsGoZeroTime) {
  rules::GroupSnapshot g;
  g.name = "new";
  g.file = "f.yml";
  g.interval_ms = 15000;
  EXPECT_EQ(encode_rules_data({g}, ""),
            R"j({"groups":[{"name":"new","file":"f.yml","rules":[],"interval":15,"limit":0,"evaluationTime":0,)j"
            R"j("lastEvaluation":"0001-01-01T00:00:00Z"}]})j");
}

}  // namespace
}  // namespace llmon::api
