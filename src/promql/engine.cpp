// Engine: parsing, limits (timeout, samples, series, concurrency) and the
// conversion of the evaluator's step values into API values. Evaluation
// itself: evaluator*.cpp.
#include "promql/engine.h"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "promql/evaluator.h"
#include "promql/parser.h"

namespace llmon::promql {

using detail::EvalContext;
using detail::EvalError;
using detail::Evaluator;
using detail::EvalValue;

// Counting semaphore with a deadline: at most max_concurrent queries run.
struct Engine::Gate {
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;
  int limit = 20;

  bool enter(std::chrono::steady_clock::time_point deadline) {
    // A query whose deadline has passed never runs (timeout <= 0), as Prometheus.
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::unique_lock lk(mu);
    if (!cv.wait_until(lk, deadline, [&] { return running < limit; })) return false;
    ++running;
    return true;
  }
  void leave() {
    std::lock_guard lk(mu);
    --running;
    cv.notify_one();
  }
};

Engine::Engine(storage::Storage& storage, EngineOptions options)
    : storage_(storage), options_(options), gate_(std::make_unique<Gate>()) {
  gate_->limit = std::max(1, options_.max_concurrent);
}

Engine::~Engine() = default;

namespace {

QueryResult fail(ErrorType t, std::string msg) {
  QueryResult r;
  r.error = QueryError{t, std::move(msg)};
  return r;
}

constexpr int64_t kMaxPoints = 11000;

}  // namespace

QueryResult Engine::instant(std::string_view query, int64_t t_ms, const QueryParams& params) {
  auto p = parse(query);
  if (!p.ok()) return fail(ErrorType::kBadData, p.error.to_string(query));
  return instant(*p.expr, t_ms, params);
}

QueryResult Engine::range(std::string_view query, int64_t start_ms, int64_t end_ms, int64_t step_ms,
                          const QueryParams& params) {
  auto p = parse(query);
  if (!p.ok()) return fail(ErrorType::kBadData, p.error.to_string(query));
  return range(*p.expr, start_ms, end_ms, step_ms, params);
}

QueryResult Engine::instant(const Expr& expr, int64_t t_ms, const QueryParams& params) {
  return run(expr, t_ms, t_ms, 0, false, params);
}

QueryResult Engine::range(const Expr& expr, int64_t start_ms, int64_t end_ms, int64_t step_ms,
                          const QueryParams& params) {
  if (step_ms <= 0)
    return fail(ErrorType::kBadData,
                "zero or negative query resolution step widths are not accepted. Try a positive integer");
  if (end_ms < start_ms) return fail(ErrorType::kBadData, "end timestamp must not be before start time");
  if ((end_ms - start_ms) / step_ms > kMaxPoints)
    return fail(ErrorType::kBadData,
                "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution "
                "(?step=XX)");
  ValueType t = type_of(expr);
  if (t != ValueType::kScalar && t != ValueType::kVector)
    return fail(ErrorType::kBadData, "invalid expression type \"" + std::string(documented_type(t)) +
                                         "\" for range query, must be Scalar or instant Vector");
  return run(expr, start_ms, end_ms, step_ms, true, params);
}

QueryResult Engine::run(const Expr& expr, int64_t start_ms, int64_t end_ms, int64_t step_ms, bool is_range,
                        const QueryParams& params) {
  QueryResult res;
  auto t0 = std::chrono::steady_clock::now();
  auto timeout = params.timeout.value_or(options_.timeout);
  auto deadline = t0 + timeout;
  if (!gate_->enter(deadline)) return fail(ErrorType::kTimeout, "query timed out in query queue");
  struct Leave {
    Gate* g;
    ~Leave() { g->leave(); }
  } leave{gate_.get()};

  auto q = storage_.querier(std::numeric_limits<int64_t>::min() / 4, std::numeric_limits<int64_t>::max() / 4);
  if (!q) return fail(ErrorType::kInternal, "opening the store for reading: " + q.error());
  EvalContext ctx;
  ctx.querier = q->get();
  ctx.query_start_ms = start_ms;
  ctx.query_end_ms = end_ms;
  ctx.lookback_ms = params.lookback_delta_ms.value_or(options_.lookback_delta_ms);
  ctx.default_subquery_step_ms = options_.default_subquery_step_ms;
  ctx.left_open = options_.left_open_ranges;
  ctx.max_samples = options_.max_samples;
  ctx.deadline = deadline;
  ctx.stats = &res.stats;
  ctx.warnings = &res.warnings;
  ctx.infos = &res.infos;
  try {
    Evaluator ev(ctx, start_ms, end_ms, is_range ? step_ms : 1);
    EvalValue v = ev.eval(expr);
    if (is_range) {
      Matrix m;
      for (auto& s : v.series) {
        MatrixSeries ms;
        ms.labels = std::move(s.labels);
        for (size_t i = 0; i < ev.steps(); ++i)
          if (s.has[i]) ms.samples.push_back({ev.step_time(i), s.v[i]});
        if (!ms.samples.empty()) m.push_back(std::move(ms));
      }
      std::sort(m.begin(), m.end(), [](const MatrixSeries& a, const MatrixSeries& b) { return a.labels < b.labels; });
      res.type = ValueType::kMatrix;
      res.value = std::move(m);
    } else {
      switch (v.type) {
        case ValueType::kScalar:
          res.value = Scalar{start_ms, v.series[0].v[0]};
          break;
        case ValueType::kString:
          res.value = String{start_ms, v.str};
          break;
        case ValueType::kVector: {
          Vector out;
          for (auto& s : v.series)
            if (!s.has.empty() && s.has[0]) out.push_back({std::move(s.labels), start_ms, s.v[0]});
          res.value = std::move(out);
          break;
        }
        case ValueType::kMatrix: {
          Matrix m;
          for (auto& s : v.raw) m.push_back({std::move(s.labels), std::move(s.samples)});
          std::sort(m.begin(), m.end(),
                    [](const MatrixSeries& a, const MatrixSeries& b) { return a.labels < b.labels; });
          res.value = std::move(m);
          break;
        }
        case ValueType::kNone:
          return fail(ErrorType::kInternal, "expression has no type");
      }
      res.type = v.type;
    }
  } catch (const EvalError& e) {
    QueryResult r = fail(e.type, e.message);
    r.stats = res.stats;
    return r;
  } catch (const std::exception& e) {
    // A bug, never a user error: reported, never allowed to take the agent down.
    return fail(ErrorType::kInternal, std::string("internal error evaluating the query: ") + e.what());
  }
  size_t nseries = 0;
  if (auto* m = std::get_if<Matrix>(&res.value)) nseries = m->size();
  if (auto* vv = std::get_if<Vector>(&res.value)) nseries = vv->size();
  if (options_.max_series > 0 && static_cast<int64_t>(nseries) > options_.max_series)
    return fail(ErrorType::kExecution, "query returned " + std::to_string(nseries) +
                                           " series, more than the limit of " + std::to_string(options_.max_series));
  res.stats.exec_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace llmon::promql
