// The evaluator's limits: the deadline, and max_samples counted as
// Prometheus 2.42 counts evaluator.currentSamples (promql/engine.go), so a
// query fails here exactly when it fails there:
//
//   * an instant selector holds one sample per series and step it yields;
//   * a range selector as a query's result holds all its samples; as a range
//     function's argument, only the current window of the current series
//     (matrixIterSlice), on top of the function's outputs so far;
//   * a subquery holds its inner expression's result, until the function
//     over it has finished;
//   * operators, aggregations, other functions and number literals
//     (rangeEval): their arguments' values, plus at each step the arguments'
//     values at that step and the outputs so far; afterwards their output;
//   * a step-invariant expression (PreprocessExpr's StepInvariantExpr) is
//     evaluated at the first step, and each repetition of its value counts.
//
// "query processing would load too many samples into memory in query
// execution" (an execution error) when the count would pass max_samples.
#include <algorithm>
#include <unordered_map>

#include "promql/evaluator.h"
#include "promql/function_table.h"

namespace llmon::promql::detail {

namespace {

[[noreturn]] void too_many_samples() {
  throw EvalError{ErrorType::kExecution, "query processing would load too many samples into memory in query execution"};
}

bool invariant(const Expr& e, std::unordered_map<const Expr*, bool>* memo) {
  if (memo) {
    auto it = memo->find(&e);
    if (it != memo->end()) return it->second;
  }
  bool r = std::visit(
      [&](const auto& n) -> bool {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, NumberLiteral> || std::is_same_v<T, StringLiteral>) {
          return true;
        } else if constexpr (std::is_same_v<T, VectorSelector>) {
          return n.at.kind != AtKind::kNone;
        } else if constexpr (std::is_same_v<T, MatrixSelector>) {
          return std::get<VectorSelector>(n.selector->node).at.kind != AtKind::kNone;
        } else if constexpr (std::is_same_v<T, SubqueryExpr>) {
          return n.at.kind != AtKind::kNone;  // whatever its inner expression
        } else if constexpr (std::is_same_v<T, ParenExpr> || std::is_same_v<T, UnaryExpr>) {
          return invariant(*n.expr, memo);
        } else if constexpr (std::is_same_v<T, BinaryExpr>) {
          return invariant(*n.lhs, memo) && invariant(*n.rhs, memo);
        } else if constexpr (std::is_same_v<T, AggregateExpr>) {
          return invariant(*n.expr, memo);  // the parameter does not count
        } else {
          if (n.func->impl.step_time_dependent) return false;
          for (const auto& a : n.args)
            if (!invariant(*a, memo)) return false;
          return true;
        }
      },
      e.node);
  if (memo) memo->emplace(&e, r);
  return r;
}

}  // namespace

bool is_step_invariant(const Expr& e) {
  return invariant(e, nullptr);
}

void Evaluator::check_deadline() const {
  if (std::chrono::steady_clock::now() > ctx_.deadline)
    throw EvalError{ErrorType::kTimeout, "query timed out in expression evaluation"};
}

void Evaluator::charge(int64_t n) {
  ctx_.samples += n;
  if (ctx_.stats) ctx_.stats->peak_samples = std::max(ctx_.stats->peak_samples, ctx_.samples);
  if (ctx_.max_samples > 0 && ctx_.samples > ctx_.max_samples) too_many_samples();
  check_deadline();
}

void Evaluator::add_present(const EvalValue& v, std::vector<int64_t>& per_step) const {
  per_step.resize(steps_, 0);
  if (v.type == ValueType::kScalar) {
    for (auto& c : per_step) ++c;
    return;
  }
  if (v.type != ValueType::kVector) return;
  for (const auto& s : v.series)
    for (size_t i = 0; i < steps_ && i < s.has.size(); ++i) per_step[i] += s.has[i];
}

void Evaluator::account_step_node(int64_t before, const std::vector<int64_t>& inputs, const EvalValue& out) {
  const int64_t held = ctx_.samples;  // `before` plus the arguments' values
  std::vector<int64_t> produced;
  add_present(out, produced);
  int64_t outputs = 0, peak = held;
  bool over = false;
  for (size_t i = 0; i < steps_; ++i) {
    outputs += produced[i];
    const int64_t now = held + outputs + (i < inputs.size() ? inputs[i] : 0);
    peak = std::max(peak, now);
    if (ctx_.max_samples > 0 && now > ctx_.max_samples) {
      over = true;
      break;
    }
  }
  if (ctx_.stats) ctx_.stats->peak_samples = std::max(ctx_.stats->peak_samples, peak);
  if (over) too_many_samples();
  ctx_.samples = before + outputs;
  check_deadline();
}

EvalValue Evaluator::eval(const Expr& e) {
  check_deadline();
  if (steps_ > 1) {
    const Expr& inner = unwrap_parens(e);
    const bool literal =
        std::holds_alternative<NumberLiteral>(inner.node) || std::holds_alternative<StringLiteral>(inner.node);
    // A range vector is not repeated per step: its value does not depend on it.
    if (!literal && invariant(inner, invariant_memo_.get())) {
      const ValueType t = type_of(inner);
      if (t == ValueType::kVector || t == ValueType::kScalar) return eval_step_invariant(inner);
    }
  }
  return dispatch(e);
}

EvalValue Evaluator::eval_step_invariant(const Expr& e) {
  Evaluator once(ctx_, start_, start_, interval_);
  once.invariant_memo_ = invariant_memo_;
  EvalValue v = once.eval(e);
  int64_t repeated = 0;
  for (auto& s : v.series) {
    const uint8_t has = s.has.empty() ? 0 : s.has[0];
    const double x = s.v.empty() ? 0 : s.v[0];
    s.v.assign(steps_, x);
    s.has.assign(steps_, has);
    if (has) repeated += static_cast<int64_t>(steps_) - 1;
  }
  charge(repeated);
  return v;
}

}  // namespace llmon::promql::detail
