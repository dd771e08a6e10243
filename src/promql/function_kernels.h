// Internal to the engine: the kernels the function table (function_table.h)
// points at, and what the evaluator hands them. The evaluator resolves a
// call's entry once per call node and then calls its kernel per window
// (range functions), per value (value and per-sample functions) or once
// (whole-call functions); a kernel never sees the table. Kernels are
// stateless; EvalError (eval_types.h) is how they fail.
//
//   * window kernels (function_kernels.cpp): adapters from
//     range_functions.h to FunctionImpl::WindowKernel;
//   * value kernels: instant_functions.h's math:: and calendar:: functions
//     themselves (FunctionImpl::ValueKernel);
//   * sample kernels (function_kernels.cpp): adapters from
//     instant_functions.h to FunctionImpl::SampleKernel;
//   * whole-call kernels (call_kernels.cpp): FunctionImpl::CallKernel.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "promql/eval_types.h"
#include "promql/function_table.h"
#include "promql/instant_functions.h"
#include "promql/range_functions.h"

namespace llmon::promql::detail {

class Evaluator;

// The values of a call's scalar arguments at one step, in argument order.
class StepScalars {
 public:
  StepScalars(const std::vector<EvalValue>& scalars, size_t step) : scalars_(&scalars), step_(step) {}
  size_t size() const { return scalars_->size(); }
  double operator[](size_t k) const { return scalars_->at(k).series[0].v[step_]; }

 private:
  const std::vector<EvalValue>* scalars_;
  size_t step_;
};

// One step's window of one series of a range function's argument.
struct RangeWindow {
  SampleSpan samples;  // the samples in the window, never empty
  int64_t start_ms;    // the window's start: end_ms - range
  int64_t end_ms;      // the step's reference time (step time or @, minus the offset)
  int64_t offset_ms;   // the argument's offset
  StepScalars params;  // the call's scalar arguments at this step
  // counter_resets functions only: the series' samples, and the indexes k of
  // the resets inside the window (samples[k].v < samples[k-1].v, with k-1
  // in the window too), in time order.
  const model::Sample* series = nullptr;
  std::span<const uint32_t> resets;
};

// What a whole-call kernel sees of the evaluator: the call, its arguments
// evaluated on demand, and the steps. Sample accounting is Prometheus's
// rangeEval (evaluator_limits.cpp): the values of what is evaluated through
// eval()/eval_scalar() count as the node's inputs at their steps, and the
// evaluator accounts the kernel's result as the node's output afterwards.
// One per call node, on the stack; not copyable.
class CallScope {
 public:
  CallScope(Evaluator& ev, const Call& call);
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  const Call& call() const { return call_; }
  size_t steps() const;
  int64_t step_time(size_t i) const;

  // Evaluates `e` (an argument, or an argument inside its parentheses).
  EvalValue eval(const Expr& e);
  EvalValue arg(size_t k) { return eval(*call_.args[k]); }
  // Argument k, which must evaluate to a scalar ("expected a scalar, got ...").
  EvalValue scalar_arg(size_t k) { return eval_scalar(*call_.args[k]); }
  EvalValue eval_scalar(const Expr& e);
  // Argument k, a string (strings hold no samples: not counted).
  std::string string_arg(size_t k);
  // timestamp() of a selector: the selected samples' times as the values.
  // Prometheus 2.42 selects at each step inside rangeEval, so the samples
  // are held at their step only (counted as inputs, not kept).
  EvalValue sample_times(const VectorSelector& vs);

  // A scalar value `v` at every step.
  EvalValue scalar(double v) const;
  // Evaluator::merge_same_labels: merges series whose labels became equal,
  // "vector cannot contain metrics with the same labelset" on a collision.
  void merge_same_labels(std::vector<StepSeries>& series) const;

 private:
  friend class Evaluator;
  Evaluator& ev_;
  const Call& call_;
  const int64_t before_;         // the samples held when the node started
  std::vector<int64_t> inputs_;  // the arguments' values present at each step
};

// The labels absent() and absent_over_time() give their output
// (Prometheus's createLabelsForAbsentFunction): the equality matchers of the
// selector `arg` (a vector or range selector), except __name__ and labels
// matched twice; none for any other expression.
model::Labels absent_labels(const Expr& arg);

// Window kernels. window_of<f>: f(samples) for f of one window's samples.
template <auto F>
std::optional<double> window_of(const RangeWindow& w) {
  return F(w.samples);
}
std::optional<double> window_rate(const RangeWindow& w);      // counting_resets
std::optional<double> window_increase(const RangeWindow& w);  // counting_resets
std::optional<double> window_delta(const RangeWindow& w);
std::optional<double> window_irate(const RangeWindow& w);
std::optional<double> window_idelta(const RangeWindow& w);
std::optional<double> window_quantile(const RangeWindow& w);        // params: q
std::optional<double> window_predict_linear(const RangeWindow& w);  // params: t (seconds)
// params: smoothing and trend factor; EvalError (execution) when invalid.
std::optional<double> window_smoothing(const RangeWindow& w);

// Sample kernels.
std::optional<double> sample_clamp(double x, const StepScalars& p);  // min, max; none when max < min
std::optional<double> sample_clamp_min(double x, const StepScalars& p);
std::optional<double> sample_clamp_max(double x, const StepScalars& p);
std::optional<double> sample_round(double x, const StepScalars& p);  // to_nearest, default 1

// Whole-call kernels (call_kernels.cpp).
EvalValue call_time(CallScope& s);
EvalValue call_pi(CallScope& s);
EvalValue call_vector(CallScope& s);
EvalValue call_scalar(CallScope& s);
EvalValue call_absent(CallScope& s);
EvalValue call_timestamp(CallScope& s);
EvalValue call_sort(CallScope& s);
EvalValue call_sort_desc(CallScope& s);
EvalValue call_sort_by_label(CallScope& s);
EvalValue call_sort_by_label_desc(CallScope& s);
EvalValue call_label_replace(CallScope& s);
EvalValue call_label_join(CallScope& s);
EvalValue call_histogram_quantile(CallScope& s);
EvalValue call_histogram_fraction(CallScope& s);

}  // namespace llmon::promql::detail
