// The table of PromQL functions: for each one its name and signature, exactly
// as Prometheus's promql/parser/functions.go has them (Prometheus 3.x set,
// float functions only), and how the engine evaluates it (`impl`). The
// parser type-checks calls against the signature; the evaluator runs the
// entry's kernel (function_kernels.h), chosen once per call node. Nothing
// names a function but its entry: code that needs to know about functions
// reads the entry's properties (FunctionImpl's kind and flags,
// `histogram_only`), and a test that needs one function compares against
// lookup_function("name").
//
// Adding a function is one row in function_table.cpp's table plus its
// implementation: the row has its name, argument types, implementation and,
// where they apply, variadic arity, return type and histogram_only. The
// implementation is one of
//   * range(kernel): the kernel maps one step's window of one series of the
//     range-vector argument (RangeWindow) to a value or none; the engine
//     cuts the windows, counts the samples held and drops __name__;
//   * unary(f), date(f): f maps one value of the instant-vector argument to
//     a value (instant_functions.h's math:: and calendar:: functions);
//   * per_sample(kernel): the kernel maps one value of the instant-vector
//     argument, with the scalar arguments at its step, to a value or none;
//   * whole_call(kernel): the kernel evaluates the call through a CallScope
//     (absent, sort, label_replace, histogram_quantile, ...);
// with, where they apply, .keeping_name(), .counting_resets() and
// .depending_on_step_time() (FunctionImpl). The numeric work belongs in the
// pure libraries (range_functions.h, instant_functions.h, ...); kernels that
// adapt them, and whole-call kernels, are declared in function_kernels.h.
//
// Native-histogram-only functions (histogram_count, histogram_sum,
// histogram_avg, histogram_stddev, histogram_stdvar) are in the table so the
// parser accepts them, with `histogram_only` set and no implementation: the
// engine rejects them with a clear "native histograms are not supported"
// error.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "promql/ast.h"

namespace llmon::promql {

namespace detail {  // the kernels' side, function_kernels.h
struct EvalValue;
struct RangeWindow;
class StepScalars;
class CallScope;
}  // namespace detail

// How the engine evaluates a function: a kind and the kernel for it (the
// kernels' contracts are in function_kernels.h), resolved once per call node.
struct FunctionImpl {
  enum class Kind : uint8_t {
    kNone,    // no implementation (histogram_only functions)
    kRange,   // `window` (or `lanes`) over each step's window of the range argument
    kValue,   // `value` on each value of the instant-vector argument
    kSample,  // `sample` on each value of the instant-vector argument, with the scalar arguments
    kCall,    // `call` evaluates the whole call
  };
  // kRange: what the output series are.
  enum class RangeOutput : uint8_t {
    kDropName,  // the kernel's values, __name__ dropped
    kKeepName,  // the kernel's values, labels as they are (last_over_time)
    kAbsent,    // no kernel: 1 at the steps where no series' window has samples (absent_over_time)
  };
  using WindowKernel = std::optional<double> (*)(const detail::RangeWindow&);
  // Up to kLanes windows (range_functions.h) at once, results bit for bit the
  // one-window function's.
  using LanesKernel = void (*)(std::span<const std::span<const model::Sample>> windows, double* out);
  using ValueKernel = double (*)(double value);
  using SampleKernel = std::optional<double> (*)(double value, const detail::StepScalars& params);
  using CallKernel = detail::EvalValue (*)(detail::CallScope&);

  Kind kind = Kind::kNone;
  WindowKernel window = nullptr;  // kRange, unless `lanes` is set
  LanesKernel lanes = nullptr;    // kRange: used instead of `window`
  ValueKernel value = nullptr;    // kValue
  SampleKernel sample = nullptr;  // kSample
  CallKernel call = nullptr;      // kCall
  RangeOutput range_output = RangeOutput::kDropName;
  // kRange: the window carries where the series' counter resets are (rate, increase).
  bool counter_resets = false;
  // Prometheus's AtModifierUnsafeFunctions (the one list of them: the
  // engine's step invariance and the tests' `@` pinning read it): the value
  // depends on the step time, so a call is never step-invariant, even over
  // `@` arguments.
  bool step_time_dependent = false;

  constexpr FunctionImpl keeping_name() const {
    FunctionImpl f = *this;
    f.range_output = RangeOutput::kKeepName;
    return f;
  }
  constexpr FunctionImpl counting_resets() const {
    FunctionImpl f = *this;
    f.counter_resets = true;
    return f;
  }
  constexpr FunctionImpl depending_on_step_time() const {
    FunctionImpl f = *this;
    f.step_time_dependent = true;
    return f;
  }
};

struct FunctionInfo {
  std::string_view name;
  std::vector<ValueType> arg_types;
  FunctionImpl impl;
  // 0: exactly arg_types.size() arguments. n > 0: the last n arguments are
  // optional. -1: the last argument type repeats without bound (label_join).
  int variadic = 0;
  ValueType return_type = ValueType::kVector;
  bool histogram_only = false;
};

// nullptr when `name` is not a function.
const FunctionInfo* lookup_function(std::string_view name);
// Every function, sorted by name (docs, completion, tests).
const std::vector<FunctionInfo>& all_functions();

}  // namespace llmon::promql
