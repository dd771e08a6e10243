// Rule files: Prometheus rule files (YAML `groups:`) parsed and validated
// into GroupSpecs (rule_types.h) exactly as Prometheus 2.42's rulefmt does:
// unknown fields and wrong types are errors (yaml.v3 KnownFields), then every
// group and rule is checked (group name empty or repeated, record/alert both
// or neither, expr empty or not PromQL, a recording rule's name, `for`,
// `keep_firing_for` or annotations, label and annotation names, templates of
// alerting rules, durations). All errors of a file are reported, each as
// promtool prints it: `FILE: L:C: group "x", rule 1, "foo": could not parse
// expression: ...`. Beyond 2.42 (as newer Prometheus): groups may have
// `labels:` and `query_offset:`.
//
// Deliberate differences from promtool 2.42's text: an error promtool prints
// without a position gets one (label/annotation names and templates: the
// key or value; durations: the value; a missing record/alert/expr key: the
// rule, where promtool prints 0:0); yaml type errors read "line L:C:" where
// Go's read "line L:"; a YAML syntax error's text is yaml-cpp's; a top-level
// type error is reported once (promtool's two decoding passes print it
// twice); label errors come in file order (Go's map order is random).
//
// Loading (load_rule_files) reads files, directories (their *.yml/*.yaml
// except *.test.yml/*.test.yaml, which are rule unit tests) and glob(3)
// patterns, and returns every group or every error; the caller keeps its old
// rules on any error. Parsing is pure; loading does file I/O only.
// Thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/metric.h"
#include "rules/rule_types.h"

namespace llmon::rules {

// Larger rule files are refused unread.
inline constexpr size_t kMaxRuleFileBytes = size_t{16} << 20;

struct RuleFileResult {
  std::vector<GroupSpec> groups;    // empty when there are errors
  std::vector<std::string> errors;  // one entry per error, "FILE: ..." (may span lines)
  size_t rule_count() const;
  bool ok() const { return errors.empty(); }
};

// Parses and validates one rule file's bytes; `file` names it in messages
// and becomes GroupSpec::file.
RuleFileResult parse_rule_file(std::string_view file, std::string_view content);

// Reads `path` (at most kMaxRuleFileBytes) and parses it. I/O errors read as
// Go's: "FILE: open FILE: no such file or directory".
RuleFileResult read_rule_file(const std::string& path);
// The bytes of a file of at most kMaxRuleFileBytes (also used for rule
// unit-test files); errors as Go's ("open F: no such file or directory").
Expected<std::string> read_rule_file_bytes(const std::string& path);

// The files `paths` name: a directory gives its *.yml and *.yaml files
// (sorted, not recursive) except *.test.yml and *.test.yaml; a path with
// glob characters (*?[) is expanded by glob(3), sorted (no match: nothing,
// as Prometheus's rule_files); anything else is taken as is. Duplicates are
// dropped (first kept). Errors: an unreadable directory, a bad pattern.
Expected<std::vector<std::string>> expand_rule_paths(const std::vector<std::string>& paths);

struct RuleFilesResult {
  std::vector<std::string> files;   // read, in order
  std::vector<GroupSpec> groups;    // all groups of all files, file order; empty on any error
  std::vector<std::string> errors;  // of every file
  bool ok() const { return errors.empty(); }
};

// expand_rule_paths + read_rule_file of each.
RuleFilesResult load_rule_files(const std::vector<std::string>& paths);

// Prometheus's label name and metric name syntax (model.LabelName.IsValid,
// model.IsValidMetricName as of 2.42).
using model::is_valid_label_name;
using model::is_valid_metric_name;

}  // namespace llmon::rules
