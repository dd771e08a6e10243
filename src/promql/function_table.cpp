// The PromQL function table (function_table.h): signatures transcribed from
// Prometheus's promql/parser/functions.go (3.x), each with its kernel
// (function_kernels.h). holt_winters is the 2.x name of
// double_exponential_smoothing; the experimental 3.x functions we implement
// (double_exponential_smoothing, mad_over_time, sort_by_label,
// sort_by_label_desc) are always enabled.
#include "promql/function_table.h"

#include <algorithm>

#include "promql/function_kernels.h"

namespace llmon::promql {

namespace {

using namespace detail;  // the kernels

constexpr ValueType S = ValueType::kScalar;
constexpr ValueType V = ValueType::kVector;
constexpr ValueType M = ValueType::kMatrix;
constexpr ValueType Str = ValueType::kString;

using Kind = FunctionImpl::Kind;

constexpr FunctionImpl range(FunctionImpl::WindowKernel k) {
  return {.kind = Kind::kRange, .window = k};
}
constexpr FunctionImpl range_lanes(FunctionImpl::LanesKernel k) {
  return {.kind = Kind::kRange, .lanes = k};
}
constexpr FunctionImpl absent_over_range() {
  return {.kind = Kind::kRange, .range_output = FunctionImpl::RangeOutput::kAbsent};
}
constexpr FunctionImpl per_sample(FunctionImpl::SampleKernel k) {
  return {.kind = Kind::kSample, .sample = k};
}
constexpr FunctionImpl whole_call(FunctionImpl::CallKernel k) {
  return {.kind = Kind::kCall, .call = k};
}
// instant_functions.h's math and date functions.
template <FuncId Id>
constexpr FunctionImpl math() {
  return per_sample(sample_of<Id>);
}
template <FuncId Id>
constexpr FunctionImpl date() {
  return per_sample(date_of<Id>).depending_on_step_time();
}
// Never run: the engine rejects histogram_only functions first.
constexpr FunctionImpl kNativeHistogramsOnly{};

std::vector<FunctionInfo> build_table() {
  std::vector<FunctionInfo> t = {
      {FuncId::kAbs, "abs", {V}, math<FuncId::kAbs>()},
      {FuncId::kAbsent, "absent", {V}, whole_call(call_absent)},
      {FuncId::kAbsentOverTime, "absent_over_time", {M}, absent_over_range()},
      {FuncId::kAcos, "acos", {V}, math<FuncId::kAcos>()},
      {FuncId::kAcosh, "acosh", {V}, math<FuncId::kAcosh>()},
      {FuncId::kAsin, "asin", {V}, math<FuncId::kAsin>()},
      {FuncId::kAsinh, "asinh", {V}, math<FuncId::kAsinh>()},
      {FuncId::kAtan, "atan", {V}, math<FuncId::kAtan>()},
      {FuncId::kAtanh, "atanh", {V}, math<FuncId::kAtanh>()},
      {FuncId::kAvgOverTime, "avg_over_time", {M}, range_lanes(avg_over_time_lanes)},
      {FuncId::kCeil, "ceil", {V}, math<FuncId::kCeil>()},
      {FuncId::kChanges, "changes", {M}, range(window_of<changes>)},
      {FuncId::kClamp, "clamp", {V, S, S}, per_sample(sample_clamp)},
      {FuncId::kClampMax, "clamp_max", {V, S}, per_sample(sample_clamp_max)},
      {FuncId::kClampMin, "clamp_min", {V, S}, per_sample(sample_clamp_min)},
      {FuncId::kCos, "cos", {V}, math<FuncId::kCos>()},
      {FuncId::kCosh, "cosh", {V}, math<FuncId::kCosh>()},
      {FuncId::kCountOverTime, "count_over_time", {M}, range(window_of<count_over_time>)},
      {FuncId::kDaysInMonth, "days_in_month", {V}, date<FuncId::kDaysInMonth>(), 1},
      {FuncId::kDayOfMonth, "day_of_month", {V}, date<FuncId::kDayOfMonth>(), 1},
      {FuncId::kDayOfWeek, "day_of_week", {V}, date<FuncId::kDayOfWeek>(), 1},
      {FuncId::kDayOfYear, "day_of_year", {V}, date<FuncId::kDayOfYear>(), 1},
      {FuncId::kDeg, "deg", {V}, math<FuncId::kDeg>()},
      {FuncId::kDelta, "delta", {M}, range(window_delta)},
      {FuncId::kDeriv, "deriv", {M}, range(window_of<deriv>)},
      {FuncId::kDoubleExponentialSmoothing, "double_exponential_smoothing", {M, S, S}, range(window_smoothing)},
      {FuncId::kExp, "exp", {V}, math<FuncId::kExp>()},
      {FuncId::kFloor, "floor", {V}, math<FuncId::kFloor>()},
      {FuncId::kHistogramAvg, "histogram_avg", {V}, kNativeHistogramsOnly, 0, V, true},
      {FuncId::kHistogramCount, "histogram_count", {V}, kNativeHistogramsOnly, 0, V, true},
      {FuncId::kHistogramFraction, "histogram_fraction", {S, S, V}, whole_call(call_histogram_fraction)},
      {FuncId::kHistogramQuantile, "histogram_quantile", {S, V}, whole_call(call_histogram_quantile)},
      {FuncId::kHistogramStddev, "histogram_stddev", {V}, kNativeHistogramsOnly, 0, V, true},
      {FuncId::kHistogramStdvar, "histogram_stdvar", {V}, kNativeHistogramsOnly, 0, V, true},
      {FuncId::kHistogramSum, "histogram_sum", {V}, kNativeHistogramsOnly, 0, V, true},
      {FuncId::kHoltWinters, "holt_winters", {M, S, S}, range(window_smoothing)},
      {FuncId::kHour, "hour", {V}, date<FuncId::kHour>(), 1},
      {FuncId::kIdelta, "idelta", {M}, range(window_idelta)},
      {FuncId::kIncrease, "increase", {M}, range(window_increase).counting_resets()},
      {FuncId::kIrate, "irate", {M}, range(window_irate)},
      {FuncId::kLabelJoin, "label_join", {V, Str, Str, Str}, whole_call(call_label_join), -1},
      {FuncId::kLabelReplace, "label_replace", {V, Str, Str, Str, Str}, whole_call(call_label_replace)},
      {FuncId::kLastOverTime, "last_over_time", {M}, range(window_of<last_over_time>).keeping_name()},
      {FuncId::kLn, "ln", {V}, math<FuncId::kLn>()},
      {FuncId::kLog10, "log10", {V}, math<FuncId::kLog10>()},
      {FuncId::kLog2, "log2", {V}, math<FuncId::kLog2>()},
      {FuncId::kMadOverTime, "mad_over_time", {M}, range(window_of<mad_over_time>)},
      {FuncId::kMaxOverTime, "max_over_time", {M}, range(window_of<max_over_time>)},
      {FuncId::kMinOverTime, "min_over_time", {M}, range(window_of<min_over_time>)},
      {FuncId::kMinute, "minute", {V}, date<FuncId::kMinute>(), 1},
      {FuncId::kMonth, "month", {V}, date<FuncId::kMonth>(), 1},
      {FuncId::kPi, "pi", {}, whole_call(call_pi), 0, S},
      {FuncId::kPredictLinear, "predict_linear", {M, S}, range(window_predict_linear).depending_on_step_time()},
      {FuncId::kPresentOverTime, "present_over_time", {M}, range(window_of<present_over_time>)},
      {FuncId::kQuantileOverTime, "quantile_over_time", {S, M}, range(window_quantile)},
      {FuncId::kRad, "rad", {V}, math<FuncId::kRad>()},
      {FuncId::kRate, "rate", {M}, range(window_rate).counting_resets()},
      {FuncId::kResets, "resets", {M}, range(window_of<resets>)},
      {FuncId::kRound, "round", {V, S}, per_sample(sample_round), 1},
      {FuncId::kScalar, "scalar", {V}, whole_call(call_scalar), 0, S},
      {FuncId::kSgn, "sgn", {V}, math<FuncId::kSgn>()},
      {FuncId::kSin, "sin", {V}, math<FuncId::kSin>()},
      {FuncId::kSinh, "sinh", {V}, math<FuncId::kSinh>()},
      {FuncId::kSort, "sort", {V}, whole_call(call_sort)},
      {FuncId::kSortByLabel, "sort_by_label", {V, Str}, whole_call(call_sort_by_label), -1},
      {FuncId::kSortByLabelDesc, "sort_by_label_desc", {V, Str}, whole_call(call_sort_by_label_desc), -1},
      {FuncId::kSortDesc, "sort_desc", {V}, whole_call(call_sort_desc)},
      {FuncId::kSqrt, "sqrt", {V}, math<FuncId::kSqrt>()},
      {FuncId::kStddevOverTime, "stddev_over_time", {M}, range(window_of<stddev_over_time>)},
      {FuncId::kStdvarOverTime, "stdvar_over_time", {M}, range(window_of<stdvar_over_time>)},
      {FuncId::kSumOverTime, "sum_over_time", {M}, range_lanes(sum_over_time_lanes)},
      {FuncId::kTan, "tan", {V}, math<FuncId::kTan>()},
      {FuncId::kTanh, "tanh", {V}, math<FuncId::kTanh>()},
      {FuncId::kTime, "time", {}, whole_call(call_time).depending_on_step_time(), 0, S},
      {FuncId::kTimestamp, "timestamp", {V}, whole_call(call_timestamp).depending_on_step_time()},
      {FuncId::kVector, "vector", {S}, whole_call(call_vector)},
      {FuncId::kYear, "year", {V}, date<FuncId::kYear>(), 1},
  };
  std::sort(t.begin(), t.end(), [](const FunctionInfo& a, const FunctionInfo& b) { return a.name < b.name; });
  return t;
}

}  // namespace

const std::vector<FunctionInfo>& all_functions() {
  static const std::vector<FunctionInfo> table = build_table();
  return table;
}

const FunctionInfo* lookup_function(std::string_view name) {
  const auto& t = all_functions();
  auto it =
      std::lower_bound(t.begin(), t.end(), name, [](const FunctionInfo& f, std::string_view n) { return f.name < n; });
  if (it == t.end() || it->name != name) return nullptr;
  return &*it;
}

}  // namespace llmon::promql
