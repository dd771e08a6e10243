// A recording rule (Prometheus's rules.RecordingRule): evaluates its expr as
// an instant query and returns the result renamed to the `record` name with
// the rule's labels applied (a label with an empty value removes it). Errors,
// in Prometheus's words: the engine's error; "vector contains metrics with the
// same labelset after applying rule labels"; "exceeded limit of N with M
// series". Appending, staleness and health are the group's (group.h).
// Thread-safety: as Rule (eval_rule.h).
#pragma once

#include "rules/eval_rule.h"

namespace llmon::rules {

class RecordingRule final : public Rule {
 public:
  RecordingRule(const RuleSpec& spec, const StringPairs& group_labels) : Rule(spec, group_labels) {}
  // Queries at ctx.ts_ms - ctx.query_offset_ms; samples carry that time.
  Expected<promql::Vector> eval(const EvalContext& ctx) override;
};

}  // namespace llmon::rules
