// `llmon rules test FILE...`: runs rule unit-test files (unit_test_file.h)
// as promtool 2.42's `test rules` does (cmd/promtool/unittest.go). Per test
// group: the input series are loaded as promtool's `load <interval>` command
// (one line per series; a blank or '#' line ends the block), into a fresh
// in-memory tsdb::Head; the rule files (relative to the test file, globs
// allowed) are loaded and their groups ordered by group_eval_order (groups
// not named count as its first); then from t=0 to the largest eval_time, every
// evaluation_interval, the samples up to t are appended and every group is
// evaluated once (rules/group.h; alerting rules restored, so ALERTS is
// written). A rule evaluation error ends the test group. Alert tests are
// checked after the evaluation at the last step at or before their
// eval_time: the firing alerts of every alerting rule of that name against
// exp_alerts (alertname added to the expected labels; labels and annotations
// compared exactly, sorted). PromQL tests run afterwards at their eval_time
// (samples after the last step are never loaded, as in promtool); expected
// values compare with ==, so NaN never matches. The engine is promtool's
// test engine: lookback 5m, at most 10000 samples per query, subquery
// default step = evaluation_interval.
//
// Output matches promtool's: "Unit Testing:  FILE", then "  SUCCESS" or
// "  FAILED:" and each failure's text on `err` (a blank line after each on
// `out`), then a blank line; exit 1 if any file failed. Deliberate
// differences: errors of the test file itself are prefixed "FILE: " and
// carry line:column (rule_file_yaml.h); a series syntax error has promtool's
// "1:COL: parse error:" form but our wording; groups not in group_eval_order
// run in file order (promtool: random map order).
//
// Thread-safe (no shared state); reads the files named.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "rules/unit_test_file.h"

namespace llmon::rules {

struct RuleTestFailure {
  enum class Kind {
    kFile,        // the test file could not be read or parsed, or a file-level check failed
    kSetup,       // a test group's series or rule files could not be loaded
    kEvaluation,  // a rule failed to evaluate (ends the test group)
    kAlert,       // an alert_rule_test did not match
    kPromql,      // a promql_expr_test did not match or failed
  };
  Kind kind = Kind::kFile;
  int test_group = -1;  // index into RuleTestFile::tests; -1 for kFile
  std::string message;  // promtool's text for it
};

struct RuleTestFileResult {
  std::string file;
  std::vector<std::string> warnings;  // "no file match pattern X" (without promtool's "  WARNING: ")
  std::vector<RuleTestFailure> failures;
  bool ok() const { return failures.empty(); }
};

// Runs a parsed test file; rule_files are relative to `file`'s directory.
RuleTestFileResult run_rule_test(const std::string& file, const RuleTestFile& tests);
// Reads, parses and runs one test file.
RuleTestFileResult run_rule_test_file(const std::string& file);

// The command: promtool-compatible output and exit status (0 or 1).
int rules_test(const std::vector<std::string>& files, std::FILE* out, std::FILE* err);

// Go's time.Duration.String() of a millisecond count ("0s", "1m0s",
// "1h30m0s", "1.5s", "500ms"), as promtool prints evaluation times.
std::string go_time_duration_string(int64_t ms);
// Go's filepath.Join(dir, name) followed by Clean, as promtool resolves
// rule_files (absolute names are only cleaned).
std::string go_path_join(const std::string& dir, const std::string& name);

}  // namespace llmon::rules
