// Function calls (Prometheus 2.x engine.go eval *parser.Call and
// functions.go): range functions over per-step windows of a matrix selector
// or subquery, element-wise functions, and the special ones (absent,
// timestamp, scalar, vector, time, sort*, label_*, histogram_*). The numeric
// work is in range_functions / instant_functions / histogram_functions /
// label_functions; this file does windows, labels and the __name__ rules
// (every function drops the metric name except last_over_time, sort*,
// label_replace and label_join).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <span>
#include <unordered_map>

#include "promql/evaluator.h"
#include "promql/function_table.h"
#include "promql/histogram_functions.h"
#include "promql/instant_functions.h"
#include "promql/label_functions.h"
#include "promql/range_functions.h"

namespace llmon::promql::detail {

namespace {

const Expr& unwrap_parens(const Expr& e) {
  const Expr* p = &e;
  while (const auto* pe = std::get_if<ParenExpr>(&p->node)) p = pe->expr.get();
  return *p;
}

// Labels absent()/absent_over_time() give their output (Prometheus's
// createLabelsForAbsentFunction).
storage::Labels absent_labels(const Expr& arg) {
  const Expr& e = arg;
  const VectorSelector* vs = std::get_if<VectorSelector>(&e.node);
  if (const auto* ms = std::get_if<MatrixSelector>(&e.node)) vs = std::get_if<VectorSelector>(&ms->selector->node);
  if (vs == nullptr) return {};
  std::map<std::string, std::string> out;
  std::map<std::string, bool> has;
  for (const auto& m : vs->matchers) {
    if (m.name == "__name__") continue;
    if (m.type == storage::Matcher::Type::kEq && !has[m.name]) {
      out[m.name] = m.value;
      has[m.name] = true;
    } else {
      out.erase(m.name);
    }
  }
  std::vector<storage::Label> pairs;
  for (auto& [k, v] : out) pairs.push_back({k, v});
  return *storage::Labels::make(std::move(pairs));
}

double go_max(double a, double b) {
  if (std::isinf(a) && a > 0) return a;
  if (std::isinf(b) && b > 0) return b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}

double go_min(double a, double b) {
  if (std::isinf(a) && a < 0) return a;
  if (std::isinf(b) && b < 0) return b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}

// Natural order for sort_by_label: digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string_view na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = i2;
      j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

bool is_range_function(FuncId id) {
  switch (id) {
    case FuncId::kRate:
    case FuncId::kIncrease:
    case FuncId::kDelta:
    case FuncId::kIrate:
    case FuncId::kIdelta:
    case FuncId::kAvgOverTime:
    case FuncId::kSumOverTime:
    case FuncId::kMinOverTime:
    case FuncId::kMaxOverTime:
    case FuncId::kCountOverTime:
    case FuncId::kLastOverTime:
    case FuncId::kPresentOverTime:
    case FuncId::kStddevOverTime:
    case FuncId::kStdvarOverTime:
    case FuncId::kQuantileOverTime:
    case FuncId::kMadOverTime:
    case FuncId::kChanges:
    case FuncId::kResets:
    case FuncId::kDeriv:
    case FuncId::kPredictLinear:
    case FuncId::kHoltWinters:
    case FuncId::kDoubleExponentialSmoothing:
    case FuncId::kAbsentOverTime:
      return true;
    default:
      return false;
  }
}

}  // namespace

EvalValue Evaluator::eval_range_function(const Call& c, const EvalValue& m, const MatrixSelector* ms, int64_t held) {
  const FuncId id = c.func->id;
  const size_t n = steps_;
  // Scalar arguments besides the matrix, evaluated per step.
  std::vector<EvalValue> scalars;
  for (const auto& a : c.args)
    if (type_of(*a) == ValueType::kScalar) scalars.push_back(eval_scalar_arg(*a));
  auto scalar_at = [&](size_t k, size_t i) { return scalars.at(k).series[0].v[i]; };

  // The windows: (ref - range, ref] or [ref - range, ref] at each step.
  int64_t range_ms = m.range_ms, offset_ms = m.offset_ms;
  AtModifier at = m.at;
  const VectorSelector* vs = nullptr;
  if (ms) {
    vs = &std::get<VectorSelector>(ms->selector->node);
    range_ms = ms->range_ms;
    offset_ms = vs->offset_ms;
    at = vs->at;
  }

  // Sample accounting (Prometheus's matrixIterSlice): while a series is
  // processed, its current window is held on top of the outputs so far;
  // once it is done, its last window stays held until the next series, and
  // its outputs are added.
  int64_t base = ctx_.samples;
  auto hold_window = [&](int64_t window) {
    const int64_t now = base + window;
    if (ctx_.stats) ctx_.stats->peak_samples = std::max(ctx_.stats->peak_samples, now);
    if (ctx_.max_samples > 0 && now > ctx_.max_samples)
      throw EvalError{ErrorType::kExecution,
                      "query processing would load too many samples into memory in query execution"};
  };
  auto add_outputs = [&](int64_t last_window, int64_t outputs) {
    if (outputs == 0) return;
    hold_window(last_window + outputs);
    base += outputs;
  };

  EvalValue out;
  out.type = ValueType::kVector;
  const bool absent = id == FuncId::kAbsentOverTime;
  std::vector<uint8_t> found(absent ? n : 0, 0);  // absent_over_time: steps with samples
  const bool keep_name = id == FuncId::kLastOverTime;

  auto process = [&](const RawSeries& rs) {
    check_deadline();
    StepSeries o = absent ? StepSeries{} : empty_step_series(keep_name ? rs.labels : drop_metric_name(rs.labels), n);
    const auto& smp = rs.samples;
    size_t lo = 0, hi = 0;
    int64_t window = 0, outputs = 0;
    // rate and increase: where the series' counter resets are (index k with
    // v[k] < v[k-1]), so a window's correction is summed from them alone.
    const bool counter = id == FuncId::kRate || id == FuncId::kIncrease;
    std::vector<uint32_t> reset_at;
    size_t reset_pos = 0;
    if (counter) {
      for (size_t k = 1; k < smp.size(); ++k)
        if (smp[k].v < smp[k - 1].v) reset_at.push_back(static_cast<uint32_t>(k));
    }
    // avg_over_time and sum_over_time: windows are computed kLanes at a time.
    SampleSpan lane_w[kLanes];
    size_t lane_i[kLanes], lanes_queued = 0;
    auto flush_lanes = [&] {
      if (lanes_queued == 0) return;
      double res[kLanes];
      std::span<const SampleSpan> ws(lane_w, lanes_queued);
      if (id == FuncId::kAvgOverTime)
        avg_over_time_lanes(ws, res);
      else
        sum_over_time_lanes(ws, res);
      for (size_t k = 0; k < lanes_queued; ++k) {
        o.has[lane_i[k]] = 1;
        o.v[lane_i[k]] = res[k];
      }
      lanes_queued = 0;
    };
    for (size_t i = 0; i < n; ++i) {
      if ((i & 1023) == 1023) check_deadline();
      int64_t r = ref_time(i, offset_ms, at), start = r - range_ms;
      if (at.kind != AtKind::kNone && i > 0) {
        flush_lanes();
        // Step-invariant window: same result as step 0.
        if (absent) {
          found[i] |= found[0];
          outputs += window > 0;
        } else if (o.has[0]) {
          o.has[i] = 1;
          o.v[i] = o.v[0];
          ++outputs;
        }
        continue;
      }
      while (hi < smp.size() && smp[hi].t_ms <= r) ++hi;
      while (lo < hi && (ctx_.left_open ? smp[lo].t_ms <= start : smp[lo].t_ms < start)) ++lo;
      window = static_cast<int64_t>(hi - lo);
      if (lo == hi) continue;
      hold_window(window);
      if (absent) {
        // Prometheus calls absent_over_time on every non-empty window and
        // holds the 1 it returns until the end.
        found[i] = 1;
        ++outputs;
        continue;
      }
      SampleSpan w(smp.data() + lo, hi - lo);
      if (id == FuncId::kAvgOverTime || id == FuncId::kSumOverTime) {
        lane_w[lanes_queued] = w;
        lane_i[lanes_queued++] = i;
        ++outputs;
        if (lanes_queued == kLanes) flush_lanes();
        continue;
      }
      std::optional<double> v;
      switch (id) {
        case FuncId::kRate:
        case FuncId::kIncrease: {
          if (w.size() < 2) break;
          // extrapolated_rate's sum, in its order: 0.0 for a negative first
          // value, then the value before each reset inside the window.
          double result = w.back().v - w.front().v;
          if (w.front().v < 0) result += 0.0;
          while (reset_pos < reset_at.size() && reset_at[reset_pos] <= lo) ++reset_pos;
          for (size_t q = reset_pos; q < reset_at.size() && reset_at[q] < hi; ++q) result += smp[reset_at[q] - 1].v;
          v = extrapolate_rate_result(w, start, r, true, id == FuncId::kRate, result);
          break;
        }
        case FuncId::kDelta:
          v = extrapolated_rate(w, start, r, false, false);
          break;
        case FuncId::kIrate:
          v = instant_rate(w, true);
          break;
        case FuncId::kIdelta:
          v = instant_rate(w, false);
          break;
        case FuncId::kAvgOverTime:
          v = avg_over_time(w);
          break;
        case FuncId::kSumOverTime:
          v = sum_over_time(w);
          break;
        case FuncId::kMinOverTime:
          v = min_over_time(w);
          break;
        case FuncId::kMaxOverTime:
          v = max_over_time(w);
          break;
        case FuncId::kCountOverTime:
          v = count_over_time(w);
          break;
        case FuncId::kLastOverTime:
          v = last_over_time(w);
          break;
        case FuncId::kPresentOverTime:
          v = present_over_time(w);
          break;
        case FuncId::kStddevOverTime:
          v = stddev_over_time(w);
          break;
        case FuncId::kStdvarOverTime:
          v = stdvar_over_time(w);
          break;
        case FuncId::kQuantileOverTime:
          v = quantile_over_time(scalar_at(0, i), w);
          break;
        case FuncId::kMadOverTime:
          v = mad_over_time(w);
          break;
        case FuncId::kChanges:
          v = changes(w);
          break;
        case FuncId::kResets:
          v = resets(w);
          break;
        case FuncId::kDeriv:
          v = deriv(w);
          break;
        case FuncId::kPredictLinear:
          v = predict_linear(w, scalar_at(0, i), r + offset_ms);
          break;
        case FuncId::kHoltWinters:
        case FuncId::kDoubleExponentialSmoothing: {
          auto e = double_exponential_smoothing(w, scalar_at(0, i), scalar_at(1, i));
          if (!e) throw EvalError{ErrorType::kExecution, e.error()};
          v = *e;
          break;
        }
        default:
          throw EvalError{ErrorType::kInternal, "not a range function: " + std::string(c.func->name)};
      }
      if (!v) continue;
      o.has[i] = 1;
      o.v[i] = *v;
      ++outputs;
    }
    flush_lanes();
    add_outputs(window, outputs);
    if (!absent && outputs > 0) out.series.push_back(std::move(o));
  };

  if (ms) {
    if (n > 0) {
      int64_t r0 = ref_time(0, offset_ms, at), r1 = ref_time(n - 1, offset_ms, at);
      int64_t mint = std::min(r0, r1) - range_ms + (ctx_.left_open ? 1 : 0), maxt = std::max(r0, r1);
      for_each_selected(vs->matchers, mint, maxt, [&](RawSeries& rs) { process(rs); });
    }
  } else {
    for (const auto& rs : m.raw) process(rs);
  }
  // The outputs stay held; a subquery's result is released.
  ctx_.samples = base - held;
  check_deadline();

  if (absent) {
    StepSeries s = empty_step_series(absent_labels(unwrap_parens(*c.args[0])), n);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (found[i]) continue;
      s.has[i] = 1;
      s.v[i] = 1;
      any = true;
    }
    if (any) out.series.push_back(std::move(s));
    return out;
  }
  merge_same_labels(out.series);
  return out;
}

EvalValue Evaluator::eval_call(const Call& c) {
  const FunctionInfo& f = *c.func;
  const FuncId id = f.id;
  const size_t n = steps_;
  if (f.histogram_only)
    throw EvalError{ErrorType::kBadData, "native histograms are not supported: function \"" + std::string(f.name) +
                                             "\" works on native histograms only, and llmon stores float samples"};

  if (is_range_function(id)) {
    for (const auto& a : c.args) {
      if (type_of(*a) != ValueType::kMatrix) continue;
      const Expr& arg = unwrap_parens(*a);
      // A range selector is read one series at a time by the function; a
      // subquery is evaluated first and held while the function runs.
      if (const auto* ms = std::get_if<MatrixSelector>(&arg.node)) return eval_range_function(c, {}, ms, 0);
      const int64_t before = ctx_.samples;
      EvalValue m = eval(arg);
      return eval_range_function(c, m, nullptr, ctx_.samples - before);
    }
    throw EvalError{ErrorType::kBadData, "function \"" + std::string(f.name) + "\" needs a range vector"};
  }

  // Prometheus evaluates the other functions with rangeEval: the arguments'
  // values (`inputs`: those present at each step) and the outputs count.
  const int64_t before = ctx_.samples;
  std::vector<int64_t> inputs;
  auto done = [&](EvalValue&& result) {
    account_step_node(before, inputs, result);
    return std::move(result);
  };
  EvalValue out;
  out.type = ValueType::kVector;
  switch (id) {
    case FuncId::kTime: {
      EvalValue s = scalar_value(0);
      for (size_t i = 0; i < n; ++i) s.series[0].v[i] = static_cast<double>(step_time(i)) / 1000.0;
      return done(std::move(s));
    }
    case FuncId::kPi:
      return done(scalar_value(std::numbers::pi));
    case FuncId::kVector: {
      EvalValue s = eval_scalar_arg(*c.args[0]);
      add_present(s, inputs);
      out.series.push_back(std::move(s.series[0]));
      return done(std::move(out));
    }
    case FuncId::kScalar: {
      EvalValue v = eval(*c.args[0]);
      add_present(v, inputs);
      EvalValue s = scalar_value(std::numeric_limits<double>::quiet_NaN());
      for (size_t i = 0; i < n; ++i) {
        int cnt = 0;
        double val = 0;
        for (const auto& ss : v.series)
          if (ss.has[i]) {
            ++cnt;
            val = ss.v[i];
          }
        if (cnt == 1) s.series[0].v[i] = val;
      }
      return done(std::move(s));
    }
    case FuncId::kAbsent: {
      EvalValue v = eval(*c.args[0]);
      add_present(v, inputs);
      StepSeries s = empty_step_series(absent_labels(*c.args[0]), n);
      bool any = false;
      for (size_t i = 0; i < n; ++i) {
        bool present = false;
        for (const auto& ss : v.series) present |= ss.has[i] != 0;
        if (!present) {
          s.has[i] = 1;
          s.v[i] = 1;
          any = true;
        }
      }
      if (any) out.series.push_back(std::move(s));
      return done(std::move(out));
    }
    case FuncId::kTimestamp: {
      const Expr& arg = unwrap_parens(*c.args[0]);
      EvalValue v;
      if (const auto* vs = std::get_if<VectorSelector>(&arg.node)) {
        // Prometheus 2.42 selects at each step inside rangeEval: the
        // selected samples are held at their step only.
        v = eval_vector_selector(*vs, true);
        ctx_.samples = before;
        add_present(v, inputs);
      } else {
        v = eval(arg);
        add_present(v, inputs);
        for (auto& s : v.series)
          for (size_t i = 0; i < n; ++i) s.v[i] = static_cast<double>(step_time(i)) / 1000.0;
      }
      for (auto& s : v.series) s.labels = drop_metric_name(s.labels);
      merge_same_labels(v.series);
      return done(std::move(v));
    }
    case FuncId::kSort:
    case FuncId::kSortDesc: {
      EvalValue v = eval(*c.args[0]);
      add_present(v, inputs);
      if (n == 1) {
        bool desc = id == FuncId::kSortDesc;
        std::stable_sort(v.series.begin(), v.series.end(), [desc](const StepSeries& a, const StepSeries& b) {
          double x = a.v[0], y = b.v[0];
          if (std::isnan(x)) return false;
          if (std::isnan(y)) return true;
          return desc ? x > y : x < y;
        });
      }
      return done(std::move(v));
    }
    case FuncId::kSortByLabel:
    case FuncId::kSortByLabelDesc: {
      EvalValue v = eval(*c.args[0]);
      add_present(v, inputs);
      std::vector<std::string> names;
      for (size_t k = 1; k < c.args.size(); ++k) names.push_back(eval(*c.args[k]).str);
      bool desc = id == FuncId::kSortByLabelDesc;
      std::stable_sort(v.series.begin(), v.series.end(), [&](const StepSeries& a, const StepSeries& b) {
        for (const auto& name : names) {
          auto x = a.labels.get(name), y = b.labels.get(name);
          if (x == y) continue;
          return desc ? natural_less(y, x) : natural_less(x, y);
        }
        return desc ? b.labels < a.labels : a.labels < b.labels;
      });
      return done(std::move(v));
    }
    case FuncId::kLabelReplace: {
      EvalValue v = eval(*c.args[0]);
      add_present(v, inputs);
      std::string dst = eval(*c.args[1]).str, repl = eval(*c.args[2]).str, src = eval(*c.args[3]).str,
                  re = eval(*c.args[4]).str;
      auto r = LabelReplacer::make(dst, repl, src, re);
      if (!r) throw EvalError{ErrorType::kExecution, r.error()};
      for (auto& s : v.series) s.labels = r->apply(s.labels);
      merge_same_labels(v.series);
      return done(std::move(v));
    }
    case FuncId::kLabelJoin: {
      EvalValue v = eval(*c.args[0]);
      add_present(v, inputs);
      std::string dst = eval(*c.args[1]).str, sep = eval(*c.args[2]).str;
      std::vector<std::string> srcs;
      for (size_t k = 3; k < c.args.size(); ++k) srcs.push_back(eval(*c.args[k]).str);
      for (auto& s : v.series) {
        auto l = label_join(s.labels, dst, sep, srcs);
        if (!l) throw EvalError{ErrorType::kExecution, l.error()};
        s.labels = std::move(*l);
      }
      merge_same_labels(v.series);
      return done(std::move(v));
    }
    case FuncId::kHistogramQuantile:
    case FuncId::kHistogramFraction: {
      bool fraction = id == FuncId::kHistogramFraction;
      EvalValue p1 = eval_scalar_arg(*c.args[0]);
      EvalValue p2 = fraction ? eval_scalar_arg(*c.args[1]) : EvalValue{};
      EvalValue v = eval(*c.args[fraction ? 2 : 1]);
      add_present(p1, inputs);
      if (fraction) add_present(p2, inputs);
      add_present(v, inputs);
      // Group buckets by their labels without `le` and __name__.
      std::vector<storage::Labels> groups;
      std::unordered_map<uint64_t, std::vector<size_t>> by_hash;
      std::vector<std::pair<size_t, double>> member(v.series.size(), {SIZE_MAX, 0});
      for (size_t k = 0; k < v.series.size(); ++k) {
        auto le = v.series[k].labels.get("le");
        if (le.empty()) continue;
        std::string les(le);
        char* end = nullptr;
        double ub = std::strtod(les.c_str(), &end);
        if (les == "+Inf" || les == "Inf" || les == "+inf" || les == "inf")
          ub = std::numeric_limits<double>::infinity();
        else if (end == les.c_str() || *end != '\0')
          continue;
        std::vector<storage::Label> pairs;
        for (const auto& p : v.series[k].labels.pairs())
          if (p.name != "le" && p.name != "__name__") pairs.push_back(p);
        storage::Labels g = *storage::Labels::make(std::move(pairs));
        auto& cands = by_hash[g.hash()];
        size_t gi = groups.size();
        for (size_t cidx : cands)
          if (groups[cidx] == g) gi = cidx;
        if (gi == groups.size()) {
          cands.push_back(gi);
          groups.push_back(std::move(g));
        }
        member[k] = {gi, ub};
      }
      for (const auto& g : groups) out.series.push_back(empty_step_series(g, n));
      std::vector<std::vector<Bucket>> buckets(groups.size());
      for (size_t i = 0; i < n; ++i) {
        for (auto& b : buckets) b.clear();
        for (size_t k = 0; k < v.series.size(); ++k)
          if (member[k].first != SIZE_MAX && v.series[k].has[i])
            buckets[member[k].first].push_back({member[k].second, v.series[k].v[i]});
        for (size_t gi = 0; gi < groups.size(); ++gi) {
          if (buckets[gi].empty()) continue;
          double r = fraction ? bucket_fraction(p1.series[0].v[i], p2.series[0].v[i], buckets[gi])
                              : bucket_quantile(p1.series[0].v[i], buckets[gi]).value;
          out.series[gi].has[i] = 1;
          out.series[gi].v[i] = r;
        }
      }
      drop_empty(out.series);
      return done(std::move(out));
    }
    default:
      break;
  }

  // Element-wise functions of one instant vector (+ scalar parameters).
  std::vector<EvalValue> scalars;
  EvalValue v;
  bool have_vector = false;
  for (const auto& a : c.args) {
    if (type_of(*a) == ValueType::kVector && !have_vector) {
      v = eval(*a);
      add_present(v, inputs);
      have_vector = true;
    } else {
      scalars.push_back(eval_scalar_arg(*a));
      add_present(scalars.back(), inputs);
    }
  }
  if (!have_vector) {
    // Date functions without an argument: vector(time()).
    StepSeries s = empty_step_series({}, n);
    for (size_t i = 0; i < n; ++i) {
      s.has[i] = 1;
      s.v[i] = static_cast<double>(step_time(i)) / 1000.0;
    }
    v.type = ValueType::kVector;
    v.series.push_back(std::move(s));
  }
  auto sc = [&](size_t k, size_t i) { return scalars.at(k).series[0].v[i]; };
  for (auto& s : v.series) {
    s.labels = drop_metric_name(s.labels);
    for (size_t i = 0; i < n; ++i) {
      if (!s.has[i]) continue;
      double x = s.v[i];
      std::optional<double> r;
      switch (id) {
        case FuncId::kClamp:
          if (sc(1, i) < sc(0, i)) {
            r.reset();
          } else {
            r = clamp(x, sc(0, i), sc(1, i));
          }
          break;
        case FuncId::kClampMin:
          r = go_max(x, sc(0, i));
          break;
        case FuncId::kClampMax:
          r = go_min(x, sc(0, i));
          break;
        case FuncId::kRound:
          r = round_to(x, scalars.empty() ? 1.0 : sc(0, i));
          break;
        default:
          r = apply_simple_function(id, x);
          if (!r) r = date_function(id, x);
          if (!r) {
            if (apply_simple_function(id, 0).has_value() || date_function(id, 0).has_value()) break;
            throw EvalError{ErrorType::kInternal, "function \"" + std::string(f.name) + "\" is not implemented"};
          }
          break;
      }
      if (r) {
        s.v[i] = *r;
      } else {
        s.has[i] = 0;
      }
    }
  }
  drop_empty(v.series);
  merge_same_labels(v.series);
  v.type = ValueType::kVector;
  return done(std::move(v));
}

}  // namespace llmon::promql::detail
