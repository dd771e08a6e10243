// The evaluator's core: dispatch, literals, selectors (one series read at a
// time, so memory is bounded by one series' range, not the query's),
// subqueries, unary minus, limits. Operators: evaluator_binary.cpp,
// evaluator_aggregate.cpp, evaluator_call.cpp, evaluator_range.cpp.
#include "promql/evaluator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>

#include "promql/label_functions.h"

namespace llmon::promql::detail {

size_t LabelSetIndex::add(model::Labels labels) {
  auto& cands = by_hash_[labels.hash()];
  for (size_t c : cands)
    if (sets_[c] == labels) return c;
  cands.push_back(sets_.size());
  sets_.push_back(std::move(labels));
  return sets_.size() - 1;
}

std::vector<model::Labels> LabelSetIndex::take() {
  std::vector<model::Labels> out = std::move(sets_);
  sets_.clear();
  by_hash_.clear();
  return out;
}

const Expr& unwrap_parens(const Expr& e) {
  const Expr* p = &e;
  while (const auto* pe = std::get_if<ParenExpr>(&p->node)) p = pe->expr.get();
  return *p;
}

model::Labels drop_metric_name(const model::Labels& labels) {
  if (labels.get("__name__").empty()) return labels;
  std::vector<model::Label> pairs;
  pairs.reserve(labels.size());
  for (const auto& l : labels.pairs())
    if (l.name != "__name__") pairs.push_back(l);
  return *model::Labels::make(std::move(pairs));
}

StepSeries empty_step_series(model::Labels labels, size_t n) {
  StepSeries s;
  s.labels = std::move(labels);
  s.v.assign(n, 0);
  s.has.assign(n, 0);
  return s;
}

namespace {
bool any_present(const StepSeries& s) {
  return std::find(s.has.begin(), s.has.end(), 1) != s.has.end();
}
}  // namespace

void append_nonempty(std::vector<StepSeries>& from, std::vector<StepSeries>& out) {
  for (auto& s : from)
    if (any_present(s)) out.push_back(std::move(s));
}

void drop_empty(std::vector<StepSeries>& series) {
  std::erase_if(series, [](const StepSeries& s) { return !any_present(s); });
}

Evaluator::Evaluator(EvalContext& ctx, int64_t start_ms, int64_t end_ms, int64_t interval_ms)
    : ctx_(ctx),
      start_(start_ms),
      end_(end_ms),
      interval_(interval_ms > 0 ? interval_ms : 1),
      invariant_memo_(std::make_shared<std::unordered_map<const Expr*, bool>>()) {
  steps_ = end_ms >= start_ms ? static_cast<size_t>((end_ms - start_ms) / interval_) + 1 : 0;
}

EvalValue Evaluator::scalar_value(double v) const {
  EvalValue out;
  out.type = ValueType::kScalar;
  StepSeries s;
  s.v.assign(steps_, v);
  s.has.assign(steps_, 1);
  out.series.push_back(std::move(s));
  return out;
}

EvalValue Evaluator::eval_scalar_arg(const Expr& e) {
  EvalValue v = eval(e);
  if (v.type != ValueType::kScalar)
    throw EvalError{ErrorType::kBadData, "expected a scalar, got " + std::string(documented_type(v.type))};
  return v;
}

int64_t Evaluator::at_time(const AtModifier& at) const {
  switch (at.kind) {
    case AtKind::kTimestamp:
      return at.t_ms;
    case AtKind::kStart:
      return ctx_.query_start_ms;
    case AtKind::kEnd:
      return ctx_.query_end_ms;
    case AtKind::kNone:
      break;
  }
  return 0;
}

int64_t Evaluator::ref_time(size_t i, int64_t offset_ms, const AtModifier& at) const {
  int64_t t = at.kind == AtKind::kNone ? step_time(i) : at_time(at);
  return t - offset_ms;
}

namespace {

// Compiled matchers for filtering what the store returns (the store matches
// regexes itself too; this guards against a store that only narrows).
bool read_series(const storage::Series& s, int64_t mint, int64_t maxt, std::vector<model::Sample>& out, Status& err) {
  out.clear();
  auto it = s.iterator();
  if (!it->seek(mint)) {
    err = it->err();
    return err.is_ok();
  }
  it->append_until(maxt, out);
  err = it->err();
  return err.is_ok();
}

}  // namespace

void Evaluator::for_each_selected(const std::vector<model::Matcher>& matchers, int64_t mint, int64_t maxt,
                                  const std::function<void(RawSeries&)>& fn) {
  auto set = ctx_.querier->select(mint, maxt, matchers);
  RawSeries rs;
  while (set->next()) {
    const auto& s = set->at();
    Status err;
    if (!read_series(s, mint, maxt, rs.samples, err))
      throw EvalError{ErrorType::kExecution, "reading " + s.labels().to_string() + ": " + err.message()};
    if (ctx_.stats) ctx_.stats->samples_loaded += static_cast<int64_t>(rs.samples.size());
    check_deadline();
    std::erase_if(rs.samples, [](const model::Sample& x) { return model::is_stale(x.v); });
    if (rs.samples.empty()) continue;
    rs.labels = s.labels();
    fn(rs);
  }
  if (!set->err().is_ok()) throw EvalError{ErrorType::kExecution, "select: " + set->err().message()};
}

EvalValue Evaluator::dispatch(const Expr& e) {
  return std::visit(
      [&](const auto& n) -> EvalValue {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, NumberLiteral>) {
          const int64_t before = ctx_.samples;
          EvalValue v = scalar_value(n.value);
          account_step_node(before, {}, v);
          return v;
        } else if constexpr (std::is_same_v<T, StringLiteral>) {
          EvalValue v;
          v.type = ValueType::kString;
          v.str = n.value;
          return v;
        } else if constexpr (std::is_same_v<T, VectorSelector>) {
          return eval_vector_selector(n, false);
        } else if constexpr (std::is_same_v<T, MatrixSelector>) {
          return eval_matrix_selector(n);
        } else if constexpr (std::is_same_v<T, SubqueryExpr>) {
          return eval_subquery(n);
        } else if constexpr (std::is_same_v<T, ParenExpr>) {
          return eval(*n.expr);
        } else if constexpr (std::is_same_v<T, UnaryExpr>) {
          return eval_unary(n);
        } else if constexpr (std::is_same_v<T, BinaryExpr>) {
          return eval_binary(n);
        } else if constexpr (std::is_same_v<T, AggregateExpr>) {
          return eval_aggregate(n);
        } else {
          return eval_call(n);
        }
      },
      e.node);
}

EvalValue Evaluator::eval_vector_selector(const VectorSelector& vs, bool sample_time_values) {
  EvalValue out;
  out.type = ValueType::kVector;
  if (steps_ == 0) return out;
  int64_t r0 = ref_time(0, vs.offset_ms, vs.at), r1 = ref_time(steps_ - 1, vs.offset_ms, vs.at);
  int64_t mint = std::min(r0, r1) - ctx_.lookback_ms, maxt = std::max(r0, r1);
  auto set = ctx_.querier->select(mint, maxt, vs.matchers);
  std::vector<model::Sample> buf;
  while (set->next()) {
    const auto& s = set->at();
    Status err;
    if (!read_series(s, mint, maxt, buf, err))
      throw EvalError{ErrorType::kExecution, "reading " + s.labels().to_string() + ": " + err.message()};
    if (ctx_.stats) ctx_.stats->samples_loaded += static_cast<int64_t>(buf.size());
    if (buf.empty()) continue;
    StepSeries ss = empty_step_series(s.labels(), steps_);
    size_t j = 0;
    int64_t present = 0;
    for (size_t i = 0; i < steps_; ++i) {
      int64_t r = ref_time(i, vs.offset_ms, vs.at);
      // The newest sample at or before r, if within the lookback window.
      if (vs.at.kind == AtKind::kNone || i == 0) {
        while (j < buf.size() && buf[j].t_ms <= r) ++j;
      }
      if (j == 0) continue;
      const auto& smp = buf[j - 1];
      bool in_window = ctx_.left_open ? smp.t_ms > r - ctx_.lookback_ms : smp.t_ms >= r - ctx_.lookback_ms;
      if (!in_window || model::is_stale(smp.v)) continue;
      ss.has[i] = 1;
      ss.v[i] = sample_time_values ? static_cast<double>(smp.t_ms) / 1000.0 : smp.v;
      ++present;
    }
    if (present == 0) continue;
    charge(present);
    out.series.push_back(std::move(ss));
  }
  if (!set->err().is_ok()) throw EvalError{ErrorType::kExecution, "select: " + set->err().message()};
  return out;
}

EvalValue Evaluator::eval_matrix_selector(const MatrixSelector& ms) {
  const auto& vs = std::get<VectorSelector>(ms.selector->node);
  EvalValue out;
  out.type = ValueType::kMatrix;
  out.range_ms = ms.range_ms;
  out.offset_ms = vs.offset_ms;
  out.at = vs.at;
  if (steps_ == 0) return out;
  int64_t r0 = ref_time(0, vs.offset_ms, vs.at), r1 = ref_time(steps_ - 1, vs.offset_ms, vs.at);
  int64_t mint = std::min(r0, r1) - ms.range_ms + (ctx_.left_open ? 1 : 0), maxt = std::max(r0, r1);
  for_each_selected(vs.matchers, mint, maxt, [&](RawSeries& rs) {
    charge(static_cast<int64_t>(rs.samples.size()));
    out.raw.push_back(std::move(rs));
  });
  return out;
}

EvalValue Evaluator::eval_subquery(const SubqueryExpr& sq) {
  int64_t step = sq.step_ms > 0 ? sq.step_ms : ctx_.default_subquery_step_ms;
  if (step <= 0) step = 60000;
  // The outer steps' reference times, then the inner steps: multiples of
  // `step` from the first one after (first ref - range) to the last ref.
  int64_t r0 = ref_time(0, sq.offset_ms, sq.at), r1 = ref_time(steps_ == 0 ? 0 : steps_ - 1, sq.offset_ms, sq.at);
  int64_t lo = std::min(r0, r1) - sq.range_ms, hi = std::max(r0, r1);
  int64_t inner_start = step * (lo / step);
  if (inner_start < lo) inner_start += step;
  EvalValue out;
  out.type = ValueType::kMatrix;
  out.range_ms = sq.range_ms;
  out.offset_ms = sq.offset_ms;
  out.at = sq.at;
  if (inner_start > hi) return out;
  Evaluator inner(ctx_, inner_start, hi, step);
  inner.invariant_memo_ = invariant_memo_;
  EvalValue v = inner.eval(*sq.expr);
  if (v.type != ValueType::kVector && v.type != ValueType::kScalar)
    throw EvalError{ErrorType::kBadData,
                    "subquery is only allowed on instant vector, got " + std::string(documented_type(v.type))};
  for (auto& s : v.series) {
    RawSeries rs;
    rs.labels = std::move(s.labels);
    for (size_t i = 0; i < inner.steps(); ++i)
      if (s.has[i]) rs.samples.push_back({inner.step_time(i), s.v[i]});
    if (!rs.samples.empty()) out.raw.push_back(std::move(rs));
  }
  return out;
}

EvalValue Evaluator::eval_unary(const UnaryExpr& u) {
  EvalValue v = eval(*u.expr);
  if (!u.negate) return v;
  if (v.type != ValueType::kScalar && v.type != ValueType::kVector)
    throw EvalError{ErrorType::kBadData,
                    "unary expression only allowed on expressions of type scalar or instant vector"};
  for (auto& s : v.series) {
    if (v.type == ValueType::kVector) s.labels = drop_metric_name(s.labels);
    for (auto& x : s.v) x = -x;
  }
  if (v.type == ValueType::kVector) merge_same_labels(v.series);
  return v;
}

void Evaluator::merge_same_labels(std::vector<StepSeries>& series) const {
  std::map<uint64_t, std::vector<size_t>> by_hash;
  bool dup = false;
  for (size_t i = 0; i < series.size(); ++i) {
    auto& v = by_hash[series[i].labels.hash()];
    v.push_back(i);
    dup |= v.size() > 1;
  }
  if (!dup) return;
  std::vector<uint8_t> drop(series.size(), 0);
  for (auto& [h, idx] : by_hash) {
    for (size_t a = 0; a < idx.size(); ++a) {
      if (drop[idx[a]]) continue;
      for (size_t b = a + 1; b < idx.size(); ++b) {
        if (drop[idx[b]] || !(series[idx[a]].labels == series[idx[b]].labels)) continue;
        auto& x = series[idx[a]];
        auto& y = series[idx[b]];
        for (size_t i = 0; i < x.has.size(); ++i) {
          if (!y.has[i]) continue;
          if (x.has[i]) throw EvalError{ErrorType::kExecution, "vector cannot contain metrics with the same labelset"};
          x.has[i] = 1;
          x.v[i] = y.v[i];
        }
        drop[idx[b]] = 1;
      }
    }
  }
  size_t w = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    if (drop[i]) continue;
    if (w != i) series[w] = std::move(series[i]);  // a self-move would empty it
    ++w;
  }
  series.resize(w);
}

}  // namespace llmon::promql::detail
