// Internal to the engine: evaluates an AST over the steps start, start +
// interval, ..., end (an instant query is one step). Semantics follow
// Prometheus 2.x's promql/engine.go; the per-operator parts live in
// evaluator_binary.cpp, evaluator_aggregate.cpp, evaluator_call.cpp
// (function calls, dispatched through their table entry) and
// evaluator_range.cpp (range functions), the sample accounting
// (max_samples) and step invariance in evaluator_limits.cpp. Throws
// EvalError (eval_types.h); Engine catches it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "promql/eval_types.h"

namespace llmon::promql::detail {

class CallScope;  // function_kernels.h

class Evaluator {
 public:
  Evaluator(EvalContext& ctx, int64_t start_ms, int64_t end_ms, int64_t interval_ms);

  EvalValue eval(const Expr& e);

  size_t steps() const { return steps_; }
  int64_t step_time(size_t i) const { return start_ + static_cast<int64_t>(i) * interval_; }

 private:
  friend class CallScope;  // the whole-call kernels' view of the evaluator

  // Checks the deadline and accounts `n` more samples held (throws when a
  // limit is exceeded).
  void charge(int64_t n);

  // Sample accounting as Prometheus 2.42 counts evaluator.currentSamples
  // (evaluator_limits.cpp). `before` is ctx.samples when the node started.
  //
  // A node Prometheus evaluates with rangeEval() (operators, aggregations,
  // functions without a range argument, number literals): its children's
  // values are held; at each step the children's values present at that step
  // (`inputs`, added up with add_present) and the node's outputs so far are
  // held too; afterwards only the node's output is.
  void account_step_node(int64_t before, const std::vector<int64_t>& inputs, const EvalValue& out);
  // Adds the number of values `v` has at each step to `per_step` (sized to
  // the steps; a scalar has one per step).
  void add_present(const EvalValue& v, std::vector<int64_t>& per_step) const;
  // Throws "query timed out ..." once the deadline has passed.
  void check_deadline() const;
  // An expression Prometheus's PreprocessExpr wraps in a StepInvariantExpr
  // (its selectors all have `@`): evaluated at the first step only, the
  // value then repeated at every step, each repetition counted.
  EvalValue eval_step_invariant(const Expr& e);

  EvalValue dispatch(const Expr& e);
  EvalValue eval_vector_selector(const VectorSelector& vs, bool sample_time_values);
  // A range vector as a value (a query's result): all its samples count
  // towards max_samples. A range function reads its argument itself.
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
  // Reads the matching series one at a time, stale markers removed, and
  // calls `fn` for each one with samples (memory: one series).
  void for_each_selected(const std::vector<model::Matcher>& matchers, int64_t mint, int64_t maxt,
                         const std::function<void(RawSeries&)>& fn);
  // Range functions (evaluator_range.cpp): applies the function's window
  // kernel to each series' window at each step. The range argument is
  // `matrix`'s series, or (when `ms` is set) the selector's series read one
  // at a time from the store. `held`: the samples the argument holds (a
  // subquery's result), released at the end.
  EvalValue eval_range_function(const Call& c, const EvalValue& matrix, const MatrixSelector* ms, int64_t held);
  // Merges series with identical labels (after name dropping) and throws
  // "vector cannot contain metrics with the same labelset" when two have a
  // value at the same step.
  void merge_same_labels(std::vector<StepSeries>& series) const;

  EvalContext& ctx_;
  int64_t start_;
  int64_t end_;
  int64_t interval_;
  size_t steps_;
  // is_step_invariant per node, shared with the evaluators of subqueries.
  std::shared_ptr<std::unordered_map<const Expr*, bool>> invariant_memo_;
};

// Distinct label sets in the order first seen, looked up by hash (the groups
// of an aggregation, the histograms of histogram_quantile).
class LabelSetIndex {
 public:
  // The index of `labels`, appended when not seen before.
  size_t add(model::Labels labels);
  // The label sets by index; the index is empty afterwards.
  std::vector<model::Labels> take();

 private:
  std::vector<model::Labels> sets_;
  std::unordered_map<uint64_t, std::vector<size_t>> by_hash_;
};

// `e` without the parentheses around it.
const Expr& unwrap_parens(const Expr& e);
// `labels` without __name__.
model::Labels drop_metric_name(const model::Labels& labels);
// A fresh StepSeries of n absent steps.
StepSeries empty_step_series(model::Labels labels, size_t n);
// Moves the series with a value at some step into `out`, in order.
void append_nonempty(std::vector<StepSeries>& from, std::vector<StepSeries>& out);
// Removes the series with no value at any step.
void drop_empty(std::vector<StepSeries>& series);
// Prometheus 2.42's preprocessExprHelper: whether `e` gives the same value at
// every step (literals; selectors and subqueries with `@`; operators,
// aggregations and calls, except of the functions whose entry is
// step_time_dependent (time(), timestamp(), predict_linear() and the date
// functions), over step-invariant arguments).
bool is_step_invariant(const Expr& e);

}  // namespace llmon::promql::detail
