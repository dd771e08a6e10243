// The rule unit-test runner (src/rules/unit_test_runner.h): structured
// results for passing and failing files, promtool's output format, and the
// promtool behaviours it reproduces (load block, samples loaded only up to
// the last evaluation, NaN never equal, group order, path resolution).
#include "rules/unit_test_runner.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace llmon::rules {
namespace {

namespace fs = std::filesystem;
using Kind = RuleTestFailure::Kind;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = ::testing::TempDir() + "llmon_unit_runner_XXXXXX";
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
    write("rules.yml", R"(groups:
  - name: g
    rules:
      - record: job:x:sum
        expr: sum by (job) (x)
      - alert: XHigh
        expr: job:x:sum > 5
        for: 2m
        labels:
          severity: page
        annotations:
          summary: 'x of {{ $labels.job }} is {{ $value }}'
)");
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& content) {
    const std::string p = dir_ + "/" + name;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  RuleTestFileResult run(const std::string& name, const std::string& content) {
    return run_rule_test_file(write(name, content));
  }
  std::string dir_;
};

std::string slurp(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

const char* kPassing = R"(rule_files: [rules.yml]
tests:
  - interval: 1m
    input_series:
      - series: 'x{job="a", i="1"}'
        values: '1 4 4 4 4'
      - series: 'x{job="a", i="2"}'
        values: '1 2 2 2 2'
    alert_rule_test:
      - eval_time: 2m
        alertname: XHigh
        exp_alerts: []
      - eval_time: 3m
        alertname: XHigh
        exp_alerts:
          - exp_labels: {job: a, severity: page}
            exp_annotations: {summary: x of a is 6}
    promql_expr_test:
      - expr: job:x:sum
        eval_time: 1m
        exp_samples:
          - labels: 'job:x:sum{job="a"}'
            value: 6
)";

TEST_F(RunnerTest, PassingFile) {
  RuleTestFileResult r = run("pass.test.yml", kPassing);
  EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
  EXPECT_TRUE(r.warnings.empty());

  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  const std::string f = dir_ + "/pass.test.yml";
  EXPECT_EQ(rules_test({f, f}, out, err), 0);
  EXPECT_EQ(slurp(out), "Unit Testing:  " + f + "\n  SUCCESS\n\nUnit Testing:  " + f + "\n  SUCCESS\n\n");
  EXPECT_EQ(slurp(err), "");
}

TEST_F(RunnerTest, AlertAndPromqlMismatches) {
  std::string text = kPassing;
  auto edit = [&](const std::string& from, const std::string& to) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
  };
  edit("{job: a, severity: page}", "{job: a, severity: info}");
  edit("value: 6", "value: 7");
  edit("tests:\n  - interval", "tests:\n  - name: n1\n    interval");
  RuleTestFileResult r = run("fail.test.yml", text);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].kind, Kind::kAlert);
  EXPECT_EQ(r.failures[0].test_group, 0);
  EXPECT_EQ(r.failures[0].message,
            "    name: n1,\n    alertname: XHigh, time: 3m, \n        exp:[\n            0:\n"
            "              Labels:{alertname=\"XHigh\", job=\"a\", severity=\"info\"}\n"
            "              Annotations:{summary=\"x of a is 6\"}\n            ], \n        got:[\n            0:\n"
            "              Labels:{alertname=\"XHigh\", job=\"a\", severity=\"page\"}\n"
            "              Annotations:{summary=\"x of a is 6\"}\n            ]");
  EXPECT_EQ(r.failures[1].kind, Kind::kPromql);
  EXPECT_EQ(r.failures[1].message,
            "    expr: \"job:x:sum\", time: 1m,\n        exp: {__name__=\"job:x:sum\", job=\"a\"} 7E+00\n"
            "        got: {__name__=\"job:x:sum\", job=\"a\"} 6E+00");

  // promtool's layout: each failure on stderr, a blank line for each on stdout.
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  EXPECT_EQ(rules_test({dir_ + "/fail.test.yml"}, out, err), 1);
  EXPECT_EQ(slurp(out), "Unit Testing:  " + dir_ + "/fail.test.yml\n\n\n\n");
  EXPECT_EQ(slurp(err), "  FAILED:\n" + r.failures[0].message + "\n" + r.failures[1].message + "\n");
}

TEST_F(RunnerTest, EvaluationErrorEndsTheTestGroup) {
  write("bad_rules.yml", "groups:\n  - name: b\n    rules:\n      - record: r\n        expr: x + on (job) y\n");
  RuleTestFileResult r = run("t.test.yml", R"(rule_files: [bad_rules.yml]
tests:
  - input_series:
      - series: 'x{job="a", i="1"}'
        values: '1 1 1'
      - series: 'y{job="a", i="1"}'
        values: '_ 1 1'
      - series: 'y{job="a", i="2"}'
        values: '_ 1 1'
    promql_expr_test:
      - expr: r
        eval_time: 2m
  - input_series: []
    promql_expr_test:
      - expr: vector(1)
)");
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].kind, Kind::kEvaluation);
  EXPECT_EQ(r.failures[0].message.rfind("    rule: r, time: 1m0s, err: found duplicate series for the match group", 0),
            0u)
      << r.failures[0].message;
  // The second test group still runs.
  EXPECT_EQ(r.failures[1].kind, Kind::kPromql);
  EXPECT_EQ(r.failures[1].test_group, 1);
}

TEST_F(RunnerTest, SetupFailures) {
  RuleTestFileResult series = run("s.test.yml",
                                  "rule_files: [rules.yml]\ntests:\n  - input_series:\n"
                                  "      - series: 'x{'\n        values: 1\n");
  ASSERT_EQ(series.failures.size(), 1u);
  EXPECT_EQ(series.failures[0].kind, Kind::kSetup);
  EXPECT_EQ(series.failures[0].message.rfind("1:4: parse error: ", 0), 0u) << series.failures[0].message;

  write("broken.yml", "groups:\n  - name: b\n    rules:\n      - record: 'a b'\n        expr: up\n");
  RuleTestFileResult rules = run("r.test.yml", "rule_files: [broken.yml, none.yml]\ntests:\n  - input_series: []\n");
  EXPECT_EQ(rules.warnings, (std::vector<std::string>{"no file match pattern " + dir_ + "/none.yml"}));
  ASSERT_EQ(rules.failures.size(), 1u);
  EXPECT_EQ(rules.failures[0].message,
            dir_ + "/broken.yml: 4:17: group \"b\", rule 1, \"a b\": invalid recording rule name: a b");

  RuleTestFileResult name = run("n.test.yml",
                                "rule_files: [rules.yml]\ntests:\n  - name: tg\n    alert_rule_test:\n"
                                "      - eval_time: 90s\n");
  ASSERT_EQ(name.failures.size(), 1u);
  EXPECT_EQ(name.failures[0].message,
            "an item under alert_rule_test misses required attribute alertname at eval_time 1m30s (in TestGroup tg)");
}

TEST_F(RunnerTest, FileFailures) {
  RuleTestFileResult missing = run_rule_test_file(dir_ + "/nope.yml");
  ASSERT_EQ(missing.failures.size(), 1u);
  EXPECT_EQ(missing.failures[0].kind, Kind::kFile);
  EXPECT_EQ(missing.failures[0].message, "open " + dir_ + "/nope.yml: no such file or directory");

  RuleTestFileResult order = run("o.test.yml", "rule_files: [rules.yml]\ngroup_eval_order: [g, h, g]\ntests: [{}]\n");
  ASSERT_EQ(order.failures.size(), 1u);
  EXPECT_EQ(order.failures[0].message, "group name repeated in evaluation order: g");

  RuleTestFileResult yaml = run("y.test.yml", "tests:\n  - nope: 1\n");
  ASSERT_EQ(yaml.failures.size(), 1u);
  EXPECT_EQ(yaml.failures[0].message,
            dir_ + "/y.test.yml: yaml: unmarshal errors:\n  line 2:5: field nope not found in type main.testGroup");
}

TEST_F(RunnerTest, PromtoolLoadingQuirks) {
  // A '#' line ends promtool's load block: `late` is never loaded. Samples
  // after the last evaluation step (0s here: 1m interval, eval_time 30s)
  // are not loaded either. NaN never equals NaN.
  RuleTestFileResult r = run("q.test.yml", R"(rule_files: [rules.yml]
tests:
  - interval: 30s
    input_series:
      - series: early
        values: '1 2'
      - series: '# comment'
        values: ''
      - series: late
        values: '1'
    promql_expr_test:
      - expr: late
        eval_time: 0s
      - expr: early
        eval_time: 30s
        exp_samples:
          - labels: early
            value: 1
      - expr: early / 0 * 0
        eval_time: 0s
        exp_samples:
          - labels: '{}'
            value: .nan
)");
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].message, "    expr: \"early / 0 * 0\", time: 0s,\n        exp: {} NaN\n        got: {} NaN");
}

TEST_F(RunnerTest, GroupEvalOrder) {
  // The alert reads what the recording group wrote: in the same evaluation
  // when that group runs first, one evaluation later otherwise.
  write("two.yml", R"(groups:
  - name: alerts
    rules:
      - alert: Seen
        expr: recorded > 0
  - name: records
    rules:
      - record: recorded
        expr: input
)");
  const std::string test = R"(rule_files: [two.yml]
ORDER
tests:
  - input_series:
      - series: input
        values: '_ 1'
    alert_rule_test:
      - eval_time: 1m
        alertname: Seen
        exp_alerts:
          - exp_labels: {}
)";
  std::string first = test;
  first.replace(first.find("ORDER"), 5, "group_eval_order: [records, alerts]");
  EXPECT_TRUE(run("first.test.yml", first).ok());
  std::string second = test;
  second.replace(second.find("ORDER"), 5, "group_eval_order: [alerts, records]");
  RuleTestFileResult late = run("second.test.yml", second);
  ASSERT_EQ(late.failures.size(), 1u);
  EXPECT_EQ(late.failures[0].kind, Kind::kAlert);
}

TEST_F(RunnerTest, RuleFilesRelativeToTheTestFileAndGlobbed) {
  write("sub/r1.yml", "groups:\n  - name: a\n    rules:\n      - alert: A\n        expr: vector(1)\n");
  write("sub/r2.yml", "groups:\n  - name: b\n    rules:\n      - alert: A\n        expr: vector(2)\n");
  RuleTestFileResult r = run("sub/t/g.test.yml", R"(rule_files: ['../r*.yml']
tests:
  - alert_rule_test:
      - eval_time: 0s
        alertname: A
        exp_alerts: [{}, {}]
)");
  EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
}

TEST(RunnerHelpers, GoDurationsAndPaths) {
  EXPECT_EQ(go_time_duration_string(0), "0s");
  EXPECT_EQ(go_time_duration_string(500), "500ms");
  EXPECT_EQ(go_time_duration_string(1500), "1.5s");
  EXPECT_EQ(go_time_duration_string(60'000), "1m0s");
  EXPECT_EQ(go_time_duration_string(90'250), "1m30.25s");
  EXPECT_EQ(go_time_duration_string(3'600'000), "1h0m0s");
  EXPECT_EQ(go_time_duration_string(90'000'000), "25h0m0s");
  EXPECT_EQ(go_path_join(".", "r.yml"), "r.yml");
  EXPECT_EQ(go_path_join("a/b", "../c/./d.yml"), "a/c/d.yml");
  EXPECT_EQ(go_path_join("/x", "/abs//y.yml"), "/abs/y.yml");
  EXPECT_EQ(go_path_join("..", "r.yml"), "../r.yml");
}

TEST(RunnerDeploy, RulePackTestsPass) {
  const std::string dir = std::string(LLMON_SOURCE_DIR) + "/deploy/rules/";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 9 && n.substr(n.size() - 9) == ".test.yml") files.push_back(e.path().string());
  }
  ASSERT_GE(files.size(), 4u);
  for (const auto& f : files) {
    RuleTestFileResult r = run_rule_test_file(f);
    EXPECT_TRUE(r.ok()) << f << ": " << (r.failures.empty() ? "" : r.failures[0].message);
  }
}

}  // namespace
}  // namespace llmon::rules
