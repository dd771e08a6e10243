// The table of PromQL functions the parser knows: name, argument types,
// variadic arity and return type, exactly as Prometheus's
// promql/parser/functions.go (Prometheus 3.x set, float functions only).
// The parser type-checks calls against it; the engine dispatches on `id`.
// Native-histogram-only functions (histogram_count, histogram_sum,
// histogram_avg, histogram_stddev, histogram_stdvar) are in the table so the
// parser accepts them, with `histogram_only` set: the engine rejects them
// with a clear "native histograms are not supported" error.
#pragma once

#include <string_view>
#include <vector>

#include "promql/ast.h"

namespace llmon::promql {

enum class FuncId {
  kAbs, kAbsent, kAbsentOverTime, kAcos, kAcosh, kAsin, kAsinh, kAtan, kAtanh, kAvgOverTime, kCeil, kChanges,
  kClamp, kClampMax, kClampMin, kCos, kCosh, kCountOverTime, kDaysInMonth, kDayOfMonth, kDayOfWeek, kDayOfYear,
  kDeg, kDelta, kDeriv, kExp, kFloor, kHistogramAvg, kHistogramCount, kHistogramFraction, kHistogramQuantile,
  kHistogramStddev, kHistogramStdvar, kHistogramSum, kDoubleExponentialSmoothing, kHoltWinters, kHour, kIdelta,
  kIncrease, kIrate, kLabelReplace, kLabelJoin, kLastOverTime, kLn, kLog10, kLog2, kMadOverTime, kMaxOverTime,
  kMinOverTime, kMinute, kMonth, kPi, kPredictLinear, kPresentOverTime, kQuantileOverTime, kRad, kRate, kResets,
  kRound, kScalar, kSgn, kSin, kSinh, kSort, kSortDesc, kSortByLabel, kSortByLabelDesc, kSqrt, kStddevOverTime,
  kStdvarOverTime, kSumOverTime, kTan, kTanh, kTime, kTimestamp, kVector, kYear,
};

struct FunctionInfo {
  FuncId id;
  std::string_view name;
  std::vector<ValueType> arg_types;
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
