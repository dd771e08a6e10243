// Internal to the engine: evaluates an AST over the steps start, start +
// interval, ..., end (an instant query is one step). Semantics follow
// Prometheus 2.x's promql/engine.go; the per-operator parts live in
// evaluator_binary.cpp, evaluator_aggregate.cpp and evaluator_call.cpp.
// Throws EvalError (eval_types.h); Engine catches it.
#pragma once

#include <cstdint>
#include <vector>

#include "promql/eval_types.h"

namespace llmon::promql::detail {

class Evaluator {
 public:
  Evaluator(EvalContext& ctx, int64_t start_ms, int64_t end_ms, int64_t interval_ms);

  EvalValue eval(const Expr& e);

  size_t steps() const { return steps_; }
  int64_t step_time(size_t i) const { return start_ + static_cast<int64_t>(i) * interval_; }

  // Checks the deadline and accounts `n` more samples held (throws when a
  // limit is exceeded).
  void charge(int64_t n);

 private:
  EvalValue eval_vector_selector(const VectorSelector& vs, bool sample_time_values);
  EvalValue eval_matrix_selector(const MatrixSelector& ms);
  EvalValue eval_subquery(const SubqueryExpr& sq);
  EvalValue eval_unary(const UnaryExpr& u);
  EvalValue eval_binary(const BinaryExpr& b);
  EvalValue eval_aggregate(const AggregateExpr& a);
  EvalValue eval_call(const Call& c);

  // Helpers shared by the operator files.
  EvalValue scalar_value(double v) const;
  EvalValue eval_scalar_arg(const Expr& e);  // evaluates and checks the type is scalar
  // The reference time of step i for a selector with this offset and @.
  int64_t ref_time(size_t i, int64_t offset_ms, const AtModifier& at) const;
  int64_t at_time(const AtModifier& at) const;
  std::vector<RawSeries> select(const std::vector<storage::Matcher>& matchers, int64_t mint, int64_t maxt);
  // Range functions: applies `fn` to each series' window at each step.
  EvalValue eval_range_function(const Call& c, const EvalValue& matrix);
  // Merges series with identical labels (after name dropping) and throws
  // "vector cannot contain metrics with the same labelset" when two have a
  // value at the same step.
  void merge_same_labels(std::vector<StepSeries>& series) const;

  EvalContext& ctx_;
  int64_t start_;
  int64_t end_;
  int64_t interval_;
  size_t steps_;
};

// `labels` without __name__.
storage::Labels drop_metric_name(const storage::Labels& labels);
// A fresh StepSeries of n absent steps.
StepSeries empty_step_series(storage::Labels labels, size_t n);
// Moves the series with a value at some step into `out`, in order.
void append_nonempty(std::vector<StepSeries>& from, std::vector<StepSeries>& out);
// Removes the series with no value at any step.
void drop_empty(std::vector<StepSeries>& series);

}  // namespace llmon::promql::detail
