// Rule unit-test file parsing (src/rules/unit_test_file.h) on literal YAML:
// every field, promtool's defaults and yaml.v2 quirks, and the error texts
// (promtool 2.42's, with the file name and columns we add).
#include "rules/unit_test_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace llmon::rules {
namespace {

TEST(RuleTestFile, EveryField) {
  auto f = parse_rule_test_file("t.yml", R"(rule_files:
  - a.yml
  - 'dir/*.yml'
evaluation_interval: 30s
group_eval_order: [g2, g1]
tests:
  - name: first
    interval: 15s
    external_labels:
      cluster: c1
      region: eu
    external_url: https://example.com/p
    input_series:
      - series: 'up{job="a"}'
        values: '1+1x3 _ stale'
      - series: down
        values: ''
    alert_rule_test:
      - eval_time: 5m
        alertname: A
        exp_alerts:
          - exp_labels:
              z: "1"
              a: "2"
            exp_annotations:
              summary: s
          - exp_labels: {}
      - eval_time: 1h
        alertname: B
    promql_expr_test:
      - expr: sum(up)
        eval_time: 2m
        exp_samples:
          - labels: '{}'
            value: 3
          - labels: 'up{job="a"}'
            value: -1.5e3
          - value: .inf
  - interval: 1m
)");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->rule_files, (std::vector<std::string>{"a.yml", "dir/*.yml"}));
  EXPECT_EQ(f->evaluation_interval_ms, 30'000);
  EXPECT_EQ(f->group_eval_order, (std::vector<std::string>{"g2", "g1"}));
  ASSERT_EQ(f->tests.size(), 2u);
  const RuleTestGroup& g = f->tests[0];
  EXPECT_EQ(g.name, "first");
  EXPECT_EQ(g.interval_ms, 15'000);
  EXPECT_EQ(g.external_labels, (StringPairs{{"cluster", "c1"}, {"region", "eu"}}));
  EXPECT_EQ(g.external_url, "https://example.com/p");
  EXPECT_EQ(g.pos.line, 7);
  ASSERT_EQ(g.input_series.size(), 2u);
  EXPECT_EQ(g.input_series[0].series, "up{job=\"a\"}");
  EXPECT_EQ(g.input_series[0].values, "1+1x3 _ stale");
  EXPECT_EQ(g.input_series[0].pos.line, 14);
  EXPECT_EQ(g.input_series[0].pos.column, 9);
  ASSERT_EQ(g.alert_rule_tests.size(), 2u);
  const AlertTestCase& a = g.alert_rule_tests[0];
  EXPECT_EQ(a.eval_time_ms, 300'000);
  EXPECT_EQ(a.alertname, "A");
  ASSERT_EQ(a.exp_alerts.size(), 2u);
  EXPECT_EQ(a.exp_alerts[0].exp_labels, (StringPairs{{"z", "1"}, {"a", "2"}}));
  EXPECT_EQ(a.exp_alerts[0].exp_annotations, (StringPairs{{"summary", "s"}}));
  EXPECT_TRUE(a.exp_alerts[1].exp_labels.empty());
  EXPECT_EQ(g.alert_rule_tests[1].eval_time_ms, 3'600'000);
  EXPECT_TRUE(g.alert_rule_tests[1].exp_alerts.empty());
  ASSERT_EQ(g.promql_expr_tests.size(), 1u);
  const PromqlTestCase& p = g.promql_expr_tests[0];
  EXPECT_EQ(p.expr, "sum(up)");
  EXPECT_EQ(p.eval_time_ms, 120'000);
  ASSERT_EQ(p.exp_samples.size(), 3u);
  EXPECT_EQ(p.exp_samples[0].labels, "{}");
  EXPECT_EQ(p.exp_samples[0].value, 3);
  EXPECT_EQ(p.exp_samples[1].value, -1500);
  EXPECT_EQ(p.exp_samples[2].labels, "");
  EXPECT_TRUE(std::isinf(p.exp_samples[2].value));
  EXPECT_EQ(f->tests[1].interval_ms, 60'000);
}

TEST(RuleTestFile, DefaultsAndYamlV2Quirks) {
  // Unset durations are 0 (the runner applies promtool's defaults); a null
  // list item is a zero item (yaml.v2), not dropped as in rule files; values
  // may be any scalar; yaml 1.1 booleans are still strings to a string field.
  auto f = parse_rule_test_file("t.yml",
                                "rule_files: [~, r.yml]\ntests:\n  -\n  - input_series:\n"
                                "      - series: yes\n        values: 1 2\n");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->evaluation_interval_ms, 0);
  EXPECT_EQ(f->rule_files, (std::vector<std::string>{"", "r.yml"}));
  ASSERT_EQ(f->tests.size(), 2u);
  EXPECT_TRUE(f->tests[0].input_series.empty());
  EXPECT_EQ(f->tests[1].input_series[0].series, "yes");
  EXPECT_EQ(f->tests[1].input_series[0].values, "1 2");

  auto empty = parse_rule_test_file("t.yml", "");
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_TRUE(empty->tests.empty());
}

TEST(RuleTestFile, SampleValuesAreYamlNumbers) {
  auto f = parse_rule_test_file("t.yml",
                                "tests:\n  - promql_expr_test:\n      - exp_samples:\n"
                                "          - value: 0x10\n          - value: 1_000\n          - value: -.INF\n"
                                "          - value: .NaN\n          - value: 1e-3\n");
  ASSERT_TRUE(f) << f.error();
  const auto& s = f->tests[0].promql_expr_tests[0].exp_samples;
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].value, 16);
  EXPECT_EQ(s[1].value, 1000);
  EXPECT_TRUE(std::isinf(s[2].value) && s[2].value < 0);
  EXPECT_TRUE(std::isnan(s[3].value));
  EXPECT_EQ(s[4].value, 0.001);
}

struct ErrCase {
  const char* name;
  const char* yaml;
  const char* error;
};

class RuleTestFileErrors : public ::testing::TestWithParam<ErrCase> {};

TEST_P(RuleTestFileErrors, ExactMessages) {
  auto f = parse_rule_test_file("t.yml", GetParam().yaml);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), GetParam().error);
}

const ErrCase kErrCases[] = {
    {"unknown_fields",
     "rule_files: [r.yml]\nfoo: 1\ntests:\n  - interval: 1m\n    bar: 2\n    input_series:\n      - series: x\n"
     "        values: 1\n        baz: 1\n",
     "t.yml: yaml: unmarshal errors:\n  line 2:1: field foo not found in type main.unitTestFile\n"
     "  line 5:5: field bar not found in type main.testGroup\n  line 9:9: field baz not found in type main.series"},
    {"type_errors",
     "rule_files: r.yml\ngroup_eval_order: 5\ntests:\n  - input_series: 5\n    alert_rule_test:\n"
     "      - exp_alerts:\n          - exp_labels: []\n    promql_expr_test:\n      - exp_samples:\n"
     "          - value: true\n          - value: NaN\n    external_labels: [a]\n    name: {}\n  - 5\n",
     "t.yml: yaml: unmarshal errors:\n  line 1:13: cannot unmarshal !!str `r.yml` into []string\n"
     "  line 2:19: cannot unmarshal !!int `5` into []string\n"
     "  line 4:19: cannot unmarshal !!int `5` into []main.series\n"
     "  line 7:25: cannot unmarshal !!seq into map[string]string\n"
     "  line 10:20: cannot unmarshal !!bool `true` into float64\n"
     "  line 11:20: cannot unmarshal !!str `NaN` into float64\n"
     "  line 12:22: cannot unmarshal !!seq into map[string]string\n"
     "  line 13:11: cannot unmarshal !!map into string\n"
     "  line 14:5: cannot unmarshal !!int `5` into main.testGroup"},
    {"repeated_fields_and_keys", "tests:\n  - interval: 1m\n    interval: 2m\n    external_labels: {a: b, a: c}\n",
     "t.yml: yaml: unmarshal errors:\n  line 3:5: field interval already set in type main.testGroup\n"
     "  line 4:32: key \"a\" already set in map"},
    {"bad_durations", "evaluation_interval: 5x\ntests:\n  - alert_rule_test:\n      - eval_time: -1m\n",
     "t.yml: 1:22: not a valid duration string: \"5x\"\nt.yml: 4:20: not a valid duration string: \"-1m\""},
    {"syntax", "tests:\n\t- a\n", "t.yml: yaml: line 2:2: illegal block entry"},
    {"garbage", "\x89PNG\r\n\x1a\n", "t.yml: yaml: line 1:1: invalid leading UTF-8 octet"},
};

INSTANTIATE_TEST_SUITE_P(All, RuleTestFileErrors, ::testing::ValuesIn(kErrCases),
                         [](const ::testing::TestParamInfo<ErrCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace llmon::rules
