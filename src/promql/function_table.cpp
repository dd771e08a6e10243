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
constexpr FunctionImpl unary(FunctionImpl::ValueKernel f) {
  return {.kind = Kind::kValue, .value = f};
}
// The date functions: of their argument's value, by default time().
constexpr FunctionImpl date(FunctionImpl::ValueKernel f) {
  return unary(f).depending_on_step_time();
}
constexpr FunctionImpl per_sample(FunctionImpl::SampleKernel k) {
  return {.kind = Kind::kSample, .sample = k};
}
constexpr FunctionImpl whole_call(FunctionImpl::CallKernel k) {
  return {.kind = Kind::kCall, .call = k};
}
// Never run: the engine rejects histogram_only functions first.
constexpr FunctionImpl kNativeHistogramsOnly{};

std::vector<FunctionInfo> build_table() {
  std::vector<FunctionInfo> t = {
      {"abs", {V}, unary(math::abs)},
      {"absent", {V}, whole_call(call_absent)},
      {"absent_over_time", {M}, absent_over_range()},
      {"acos", {V}, unary(math::acos)},
      {"acosh", {V}, unary(math::acosh)},
      {"asin", {V}, unary(math::asin)},
      {"asinh", {V}, unary(math::asinh)},
      {"atan", {V}, unary(math::atan)},
      {"atanh", {V}, unary(math::atanh)},
      {"avg_over_time", {M}, range_lanes(avg_over_time_lanes)},
      {"ceil", {V}, unary(math::ceil)},
      {"changes", {M}, range(window_of<changes>)},
      {"clamp", {V, S, S}, per_sample(sample_clamp)},
      {"clamp_max", {V, S}, per_sample(sample_clamp_max)},
      {"clamp_min", {V, S}, per_sample(sample_clamp_min)},
      {"cos", {V}, unary(math::cos)},
      {"cosh", {V}, unary(math::cosh)},
      {"count_over_time", {M}, range(window_of<count_over_time>)},
      {"days_in_month", {V}, date(calendar::days_in_month), 1},
      {"day_of_month", {V}, date(calendar::day_of_month), 1},
      {"day_of_week", {V}, date(calendar::day_of_week), 1},
      {"day_of_year", {V}, date(calendar::day_of_year), 1},
      {"deg", {V}, unary(math::deg)},
      {"delta", {M}, range(window_delta)},
      {"deriv", {M}, range(window_of<deriv>)},
      {"double_exponential_smoothing", {M, S, S}, range(window_smoothing)},
      {"exp", {V}, unary(math::exp)},
      {"floor", {V}, unary(math::floor)},
      {"histogram_avg", {V}, kNativeHistogramsOnly, 0, V, true},
      {"histogram_count", {V}, kNativeHistogramsOnly, 0, V, true},
      {"histogram_fraction", {S, S, V}, whole_call(call_histogram_fraction)},
      {"histogram_quantile", {S, V}, whole_call(call_histogram_quantile)},
      {"histogram_stddev", {V}, kNativeHistogramsOnly, 0, V, true},
      {"histogram_stdvar", {V}, kNativeHistogramsOnly, 0, V, true},
      {"histogram_sum", {V}, kNativeHistogramsOnly, 0, V, true},
      {"holt_winters", {M, S, S}, range(window_smoothing)},
      {"hour", {V}, date(calendar::hour), 1},
      {"idelta", {M}, range(window_idelta)},
      {"increase", {M}, range(window_increase).counting_resets()},
      {"irate", {M}, range(window_irate)},
      {"label_join", {V, Str, Str, Str}, whole_call(call_label_join), -1},
      {"label_replace", {V, Str, Str, Str, Str}, whole_call(call_label_replace)},
      {"last_over_time", {M}, range(window_of<last_over_time>).keeping_name()},
      {"ln", {V}, unary(math::ln)},
      {"log10", {V}, unary(math::log10)},
      {"log2", {V}, unary(math::log2)},
      {"mad_over_time", {M}, range(window_of<mad_over_time>)},
      {"max_over_time", {M}, range(window_of<max_over_time>)},
      {"min_over_time", {M}, range(window_of<min_over_time>)},
      {"minute", {V}, date(calendar::minute), 1},
      {"month", {V}, date(calendar::month), 1},
      {"pi", {}, whole_call(call_pi), 0, S},
      {"predict_linear", {M, S}, range(window_predict_linear).depending_on_step_time()},
      {"present_over_time", {M}, range(window_of<present_over_time>)},
      {"quantile_over_time", {S, M}, range(window_quantile)},
      {"rad", {V}, unary(math::rad)},
      {"rate", {M}, range(window_rate).counting_resets()},
      {"resets", {M}, range(window_of<resets>)},
      {"round", {V, S}, per_sample(sample_round), 1},
      {"scalar", {V}, whole_call(call_scalar), 0, S},
      {"sgn", {V}, unary(math::sgn)},
      {"sin", {V}, unary(math::sin)},
      {"sinh", {V}, unary(math::sinh)},
      {"sort", {V}, whole_call(call_sort)},
      {"sort_by_label", {V, Str}, whole_call(call_sort_by_label), -1},
      {"sort_by_label_desc", {V, Str}, whole_call(call_sort_by_label_desc), -1},
      {"sort_desc", {V}, whole_call(call_sort_desc)},
      {"sqrt", {V}, unary(math::sqrt)},
      {"stddev_over_time", {M}, range(window_of<stddev_over_time>)},
      {"stdvar_over_time", {M}, range(window_of<stdvar_over_time>)},
      {"sum_over_time", {M}, range_lanes(sum_over_time_lanes)},
      {"tan", {V}, unary(math::tan)},
      {"tanh", {V}, unary(math::tanh)},
      {"time", {}, whole_call(call_time).depending_on_step_time(), 0, S},
      {"timestamp", {V}, whole_call(call_timestamp).depending_on_step_time()},
      {"vector", {S}, whole_call(call_vector)},
      {"year", {V}, date(calendar::year), 1},
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
