// The PromQL engine: evaluates a query over a storage::Storage with
// Prometheus's semantics (promql/engine.go): instant evaluation at one time,
// range evaluation at start, start+step, ..., <= end; the lookback delta
// (5 m) for instant selectors; staleness markers end a series; `offset` and
// `@`; subqueries aligned to absolute multiples of their step; extrapolated
// rate/increase/delta; the `__name__` dropping rules; duplicate-series and
// many-to-many matching errors in Prometheus's wording.
//
// Limits (EngineOptions) hold for every query and never take the process
// down: a timeout (checked between steps and series), a cap on the samples
// held in memory at once (Prometheus's max_samples), a cap on the series a
// result may return, and a cap on concurrently running queries (a query
// waits for a slot until its timeout).
//
// Thread-safety: an Engine is shared by all threads; each call is
// independent. The storage must outlive the engine.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "promql/ast.h"
#include "promql/value.h"
#include "storage/storage.h"

namespace llmon::promql {

struct EngineOptions {
  int64_t lookback_delta_ms = 5 * 60 * 1000;
  // Step of a subquery written without one (`x[5m:]`): Prometheus uses the
  // global evaluation interval, 1 m by default.
  int64_t default_subquery_step_ms = 60 * 1000;
  std::chrono::milliseconds timeout{2 * 60 * 1000};
  int64_t max_samples = 50'000'000;
  int64_t max_series = 0;  // 0: unlimited (the API's `limit` is separate)
  int max_concurrent = 20;
  // Prometheus 3 selects (t - range, t] for range selectors and the
  // lookback window; Prometheus 2 selects [t - range, t]. Default: 2's, the
  // version Debian ships and our differential oracle.
  bool left_open_ranges = false;
};

// Prometheus API errorType values.
enum class ErrorType { kBadData, kExecution, kCanceled, kTimeout, kInternal, kUnavailable };
std::string_view error_type_text(ErrorType t);  // "bad_data", "execution", ...

struct QueryError {
  ErrorType type = ErrorType::kExecution;
  std::string message;
};

struct QueryStats {
  int64_t samples_loaded = 0;   // samples read from storage
  int64_t peak_samples = 0;     // most samples held at once
  double exec_seconds = 0;
};

struct QueryResult {
  std::optional<QueryError> error;  // set: the query failed; `value` is unspecified
  ValueType type = ValueType::kNone;
  Value value;                      // a range query's value is always a Matrix
  std::vector<std::string> warnings;
  std::vector<std::string> infos;
  QueryStats stats;
  bool ok() const { return !error.has_value(); }
};

// Per-query overrides (the API's `timeout` and `lookback_delta` parameters).
struct QueryParams {
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<int64_t> lookback_delta_ms;
};

class Engine {
 public:
  Engine(storage::Storage& storage, EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Parses and evaluates at t_ms. Parse errors are kBadData.
  QueryResult instant(std::string_view query, int64_t t_ms, const QueryParams& params = {});
  // Evaluates at start, start+step, ... <= end. step_ms > 0, end >= start;
  // more than 11 000 points per series is a kBadData error, as in Prometheus.
  QueryResult range(std::string_view query, int64_t start_ms, int64_t end_ms, int64_t step_ms,
                    const QueryParams& params = {});
  // The same on an already parsed tree (rules evaluate the same tree each cycle).
  QueryResult instant(const Expr& expr, int64_t t_ms, const QueryParams& params = {});
  QueryResult range(const Expr& expr, int64_t start_ms, int64_t end_ms, int64_t step_ms,
                    const QueryParams& params = {});

  const EngineOptions& options() const { return options_; }

 private:
  QueryResult run(const Expr& expr, int64_t start_ms, int64_t end_ms, int64_t step_ms, bool is_range,
                  const QueryParams& params);
  struct Gate;
  storage::Storage& storage_;
  EngineOptions options_;
  std::unique_ptr<Gate> gate_;
};

}  // namespace llmon::promql
