// The PromQL function signatures (function_table.h), transcribed from
// Prometheus's promql/parser/functions.go (3.x). holt_winters is the 2.x
// name of double_exponential_smoothing; the experimental 3.x functions we
// implement (double_exponential_smoothing, mad_over_time, sort_by_label,
// sort_by_label_desc) are always enabled.
#include "promql/function_table.h"

#include <algorithm>

namespace llmon::promql {

namespace {

constexpr ValueType S = ValueType::kScalar;
constexpr ValueType V = ValueType::kVector;
constexpr ValueType M = ValueType::kMatrix;
constexpr ValueType Str = ValueType::kString;

std::vector<FunctionInfo> build_table() {
  std::vector<FunctionInfo> t = {
      {FuncId::kAbs, "abs", {V}},
      {FuncId::kAbsent, "absent", {V}},
      {FuncId::kAbsentOverTime, "absent_over_time", {M}},
      {FuncId::kAcos, "acos", {V}},
      {FuncId::kAcosh, "acosh", {V}},
      {FuncId::kAsin, "asin", {V}},
      {FuncId::kAsinh, "asinh", {V}},
      {FuncId::kAtan, "atan", {V}},
      {FuncId::kAtanh, "atanh", {V}},
      {FuncId::kAvgOverTime, "avg_over_time", {M}},
      {FuncId::kCeil, "ceil", {V}},
      {FuncId::kChanges, "changes", {M}},
      {FuncId::kClamp, "clamp", {V, S, S}},
      {FuncId::kClampMax, "clamp_max", {V, S}},
      {FuncId::kClampMin, "clamp_min", {V, S}},
      {FuncId::kCos, "cos", {V}},
      {FuncId::kCosh, "cosh", {V}},
      {FuncId::kCountOverTime, "count_over_time", {M}},
      {FuncId::kDaysInMonth, "days_in_month", {V}, 1},
      {FuncId::kDayOfMonth, "day_of_month", {V}, 1},
      {FuncId::kDayOfWeek, "day_of_week", {V}, 1},
      {FuncId::kDayOfYear, "day_of_year", {V}, 1},
      {FuncId::kDeg, "deg", {V}},
      {FuncId::kDelta, "delta", {M}},
      {FuncId::kDeriv, "deriv", {M}},
      {FuncId::kDoubleExponentialSmoothing, "double_exponential_smoothing", {M, S, S}},
      {FuncId::kExp, "exp", {V}},
      {FuncId::kFloor, "floor", {V}},
      {FuncId::kHistogramAvg, "histogram_avg", {V}, 0, V, true},
      {FuncId::kHistogramCount, "histogram_count", {V}, 0, V, true},
      {FuncId::kHistogramFraction, "histogram_fraction", {S, S, V}},
      {FuncId::kHistogramQuantile, "histogram_quantile", {S, V}},
      {FuncId::kHistogramStddev, "histogram_stddev", {V}, 0, V, true},
      {FuncId::kHistogramStdvar, "histogram_stdvar", {V}, 0, V, true},
      {FuncId::kHistogramSum, "histogram_sum", {V}, 0, V, true},
      {FuncId::kHoltWinters, "holt_winters", {M, S, S}},
      {FuncId::kHour, "hour", {V}, 1},
      {FuncId::kIdelta, "idelta", {M}},
      {FuncId::kIncrease, "increase", {M}},
      {FuncId::kIrate, "irate", {M}},
      {FuncId::kLabelJoin, "label_join", {V, Str, Str, Str}, -1},
      {FuncId::kLabelReplace, "label_replace", {V, Str, Str, Str, Str}},
      {FuncId::kLastOverTime, "last_over_time", {M}},
      {FuncId::kLn, "ln", {V}},
      {FuncId::kLog10, "log10", {V}},
      {FuncId::kLog2, "log2", {V}},
      {FuncId::kMadOverTime, "mad_over_time", {M}},
      {FuncId::kMaxOverTime, "max_over_time", {M}},
      {FuncId::kMinOverTime, "min_over_time", {M}},
      {FuncId::kMinute, "minute", {V}, 1},
      {FuncId::kMonth, "month", {V}, 1},
      {FuncId::kPi, "pi", {}, 0, S},
      {FuncId::kPredictLinear, "predict_linear", {M, S}},
      {FuncId::kPresentOverTime, "present_over_time", {M}},
      {FuncId::kQuantileOverTime, "quantile_over_time", {S, M}},
      {FuncId::kRad, "rad", {V}},
      {FuncId::kRate, "rate", {M}},
      {FuncId::kResets, "resets", {M}},
      {FuncId::kRound, "round", {V, S}, 1},
      {FuncId::kScalar, "scalar", {V}, 0, S},
      {FuncId::kSgn, "sgn", {V}},
      {FuncId::kSin, "sin", {V}},
      {FuncId::kSinh, "sinh", {V}},
      {FuncId::kSort, "sort", {V}},
      {FuncId::kSortByLabel, "sort_by_label", {V, Str}, -1},
      {FuncId::kSortByLabelDesc, "sort_by_label_desc", {V, Str}, -1},
      {FuncId::kSortDesc, "sort_desc", {V}},
      {FuncId::kSqrt, "sqrt", {V}},
      {FuncId::kStddevOverTime, "stddev_over_time", {M}},
      {FuncId::kStdvarOverTime, "stdvar_over_time", {M}},
      {FuncId::kSumOverTime, "sum_over_time", {M}},
      {FuncId::kTan, "tan", {V}},
      {FuncId::kTanh, "tanh", {V}},
      {FuncId::kTime, "time", {}, 0, S},
      {FuncId::kTimestamp, "timestamp", {V}},
      {FuncId::kVector, "vector", {S}},
      {FuncId::kYear, "year", {V}, 1},
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
