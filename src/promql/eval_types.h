// Internal to the engine (engine.cpp, evaluator*.cpp): the values an AST
// node evaluates to over all the steps of a query at once, as Prometheus's
// evaluator does (every node is evaluated for start, start+interval, ...,
// end in one pass, so a selector reads its series once per query).
//
//   * instant vector: StepSeries, dense over the steps: v[i] is the value at
//     step i when has[i] != 0;
//   * scalar: one StepSeries with empty labels, present at every step;
//   * range vector (matrix selector, subquery): RawSeries, the samples
//     themselves, with the range/offset/@ needed to cut per-step windows;
//   * string: the literal.
//
// Errors inside the evaluator are thrown as EvalError and caught by
// Engine (engine.cpp) — they never leave the module.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "promql/ast.h"
#include "promql/engine.h"
#include "promql/value.h"
#include "storage/storage.h"

namespace llmon::promql::detail {

struct EvalError {
  ErrorType type = ErrorType::kExecution;
  std::string message;
};

struct StepSeries {
  model::Labels labels;
  std::vector<double> v;     // size = number of steps
  std::vector<uint8_t> has;  // 1 where v is present
};

// The samples of one series for a range vector, sorted by time, stale
// markers removed.
struct RawSeries {
  model::Labels labels;
  std::vector<model::Sample> samples;
};

struct EvalValue {
  ValueType type = ValueType::kNone;
  std::vector<StepSeries> series;  // kVector; kScalar: exactly one
  std::vector<RawSeries> raw;      // kMatrix
  int64_t range_ms = 0;            // kMatrix: the window length
  int64_t offset_ms = 0;           // kMatrix: offset of the selector / subquery
  AtModifier at;                   // kMatrix: @ of the selector / subquery
  std::string str;                 // kString
};

// One query's parameters and running totals.
struct EvalContext {
  storage::Querier* querier = nullptr;
  int64_t query_start_ms = 0;  // the outermost query's start and end: @ start() / @ end()
  int64_t query_end_ms = 0;
  int64_t lookback_ms = 0;
  int64_t default_subquery_step_ms = 60000;
  bool left_open = false;
  int64_t max_samples = 0;
  std::chrono::steady_clock::time_point deadline;
  int64_t samples = 0;  // samples loaded + points produced so far
  QueryStats* stats = nullptr;
  std::vector<std::string>* warnings = nullptr;
  std::vector<std::string>* infos = nullptr;
};

}  // namespace llmon::promql::detail
