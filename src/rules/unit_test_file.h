// Rule unit-test files: the YAML `promtool test rules` reads
// (docs/configuration/unit_testing_rules.md; cmd/promtool/unittest.go of
// Prometheus 2.42), parsed into plain structs: rule_files,
// evaluation_interval, group_eval_order and tests, each test with interval,
// input_series {series, values}, alert_rule_test {eval_time, alertname,
// exp_alerts {exp_labels, exp_annotations}}, promql_expr_test {expr,
// eval_time, exp_samples {labels, value}}, external_labels, external_url and
// name. Decoded as promtool does (yaml.v2 UnmarshalStrict: unknown or
// repeated fields and repeated map keys are errors; a null list item is a
// zero item), with its messages ("line 5: field bar not found in type
// main.testGroup"), each position with a column, and the file named first:
// "FILE: yaml: unmarshal errors:\n  line 5:5: field bar ...". Series and
// values are kept as text: the runner (unit_test_runner.h) expands them
// (promql/series_notation.h) the way promtool's `load` command does.
//
// Pure: parses bytes; reading files and resolving rule_files is the
// runner's. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rules/rule_types.h"

namespace llmon::rules {

struct TestInputSeries {
  std::string series;  // `metric{a="b"}`
  std::string values;  // expanding notation: `1+2x3 _ stale`
  SourcePos pos;       // of the item
};

struct TestExpectedAlert {
  StringPairs exp_labels;       // file order; alertname is added by the runner
  StringPairs exp_annotations;  // file order
};

struct AlertTestCase {
  int64_t eval_time_ms = 0;
  std::string alertname;
  std::vector<TestExpectedAlert> exp_alerts;
  SourcePos pos;
};

struct TestExpectedSample {
  std::string labels;  // `metric{a="b"}`, parsed by the runner
  double value = 0;
};

struct PromqlTestCase {
  std::string expr;
  int64_t eval_time_ms = 0;
  std::vector<TestExpectedSample> exp_samples;
  SourcePos pos;
};

struct RuleTestGroup {
  int64_t interval_ms = 0;  // 0: the file's evaluation_interval
  std::vector<TestInputSeries> input_series;
  std::vector<AlertTestCase> alert_rule_tests;
  std::vector<PromqlTestCase> promql_expr_tests;
  StringPairs external_labels;  // file order
  std::string external_url;
  std::string name;
  SourcePos pos;
};

struct RuleTestFile {
  std::vector<std::string> rule_files;  // as written (relative to the test file, globs allowed)
  int64_t evaluation_interval_ms = 0;   // 0: promtool's default, 1m
  std::vector<std::string> group_eval_order;
  std::vector<RuleTestGroup> tests;
};

// Parses a unit-test file's bytes; `file` names it in errors.
Expected<RuleTestFile> parse_rule_test_file(std::string_view file, std::string_view content);

}  // namespace llmon::rules
