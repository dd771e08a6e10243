// Rule specifications: what a Prometheus rule file says, parsed and
// validated (rule_file.h builds these; group.h evaluates them). Plain values,
// immutable once loaded and shared between the evaluator, the API and
// `llmon rules check|test`.
//
// Labels and annotations keep the file's order; label values of alerting
// rules and annotation values are Go templates (template.h), parsed lazily
// by the evaluator. Durations are milliseconds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "promql/ast.h"

namespace llmon::rules {

// Where something sits in a rule file: 1-based line and column, as promtool
// and Prometheus print them ("FILE:LINE:COL: message").
struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;
};

using StringPairs = std::vector<std::pair<std::string, std::string>>;

struct RuleSpec {
  enum class Kind { kRecording, kAlerting };
  Kind kind = Kind::kRecording;
  std::string name;  // the `record:` or `alert:` value
  std::string expr;  // as written in the file
  std::shared_ptr<const promql::Expr> parsed;  // never null once loaded
  int64_t for_ms = 0;                // alerting only
  int64_t keep_firing_for_ms = 0;    // alerting only
  StringPairs labels;                // file order; templates for alerting rules
  StringPairs annotations;           // alerting only; templates
  SourcePos pos;                     // of the rule's `record:`/`alert:` key
};

struct GroupSpec {
  std::string name;
  std::string file;                  // path as given (the group's identity is file + name)
  int64_t interval_ms = 0;           // 0: the global --rules.evaluation-interval
  int limit = 0;                     // 0: no limit on series per rule
  std::optional<int64_t> query_offset_ms;  // unset: the global --rules.query-offset
  StringPairs labels;                // group `labels:` added to every rule's output
  std::vector<RuleSpec> rules;
  SourcePos pos;                     // of the group's `name:` key
};

}  // namespace llmon::rules
