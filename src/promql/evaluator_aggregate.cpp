// Aggregation operators (Prometheus 2.x engine.go aggregation(); limitk and
// limit_ratio from 3.x): sum avg min max count group stddev stdvar topk
// bottomk quantile count_values limitk limit_ratio, with by/without.
// Group keys are computed once per series; values are aggregated per step.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "promql/aggregate_math.h"
#include "promql/evaluator.h"
#include "promql/label_functions.h"

namespace llmon::promql::detail {

namespace {

bool listed(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

model::Labels group_labels(const model::Labels& l, const AggregateExpr& a) {
  std::vector<model::Label> out;
  for (const auto& p : l.pairs()) {
    bool in = listed(a.grouping, p.name);
    if (a.without ? (!in && p.name != "__name__") : in) out.push_back(p);
  }
  return *model::Labels::make(std::move(out));
}

// strconv.FormatFloat(v, 'f', -1, 64).
std::string format_fixed(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

// A per-step accumulator of one group.
struct Acc {
  bool seen = false;
  double value = 0;
  double count = 0;
  MeanAccumulator mean;
  WelfordAccumulator welford;
  std::vector<double> values;                // quantile
  std::vector<std::pair<double, size_t>> k;  // topk/bottomk/limitk: (value, input series)
};

uint64_t mix_hash(uint64_t h) {
  // splitmix64 finaliser: spreads the FNV label hash over [0, 2^64).
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

}  // namespace

EvalValue Evaluator::eval_aggregate(const AggregateExpr& a) {
  const size_t n = steps_;
  // rangeEval's accounting: the parameter's and the input's values held, and
  // at each step those present plus the outputs so far.
  const int64_t before = ctx_.samples;
  std::vector<int64_t> inputs;
  EvalValue param;
  std::string count_label;
  if (a.op == AggOp::kCountValues) {
    EvalValue p = eval(*a.param);
    if (p.type != ValueType::kString)
      throw EvalError{ErrorType::kBadData, "expected string parameter for count_values"};
    count_label = p.str;
    if (!is_valid_label_name(count_label))
      throw EvalError{ErrorType::kExecution, "invalid label name \"" + count_label + "\""};
  } else if (aggop_has_param(a.op)) {
    param = eval_scalar_arg(*a.param);
    add_present(param, inputs);
  }
  EvalValue in = eval(*a.expr);
  if (in.type != ValueType::kVector)
    throw EvalError{ErrorType::kBadData,
                    "expected instant vector in aggregation expression, got " + std::string(documented_type(in.type))};
  add_present(in, inputs);
  EvalValue out;
  out.type = ValueType::kVector;

  // Group of each input series.
  std::vector<size_t> group_of(in.series.size());
  LabelSetIndex index;
  for (size_t k = 0; k < in.series.size(); ++k) group_of[k] = index.add(group_labels(in.series[k].labels, a));
  const std::vector<model::Labels> groups = index.take();

  const bool selects =
      a.op == AggOp::kTopk || a.op == AggOp::kBottomk || a.op == AggOp::kLimitk || a.op == AggOp::kLimitRatio;
  if (selects) {
    // Outputs are input series, labels unchanged.
    std::vector<StepSeries> sel(in.series.size());
    for (size_t k = 0; k < in.series.size(); ++k) sel[k] = empty_step_series(in.series[k].labels, n);
    std::vector<Acc> acc(groups.size());
    std::vector<size_t> order;  // instant query: outputs per group, best first (Prometheus's order)
    for (size_t i = 0; i < n; ++i) {
      check_deadline();  // Prometheus checks at every step
      double p = param.series[0].v[i];
      if (a.op == AggOp::kLimitRatio) {
        if (std::isnan(p) || p < -1 || p > 1) {
          if (ctx_.warnings)
            ctx_.warnings->push_back("PromQL warning: ratio value should be between -1 and 1, got " + format_fixed(p) +
                                     ", capping to " + (p < 0 ? "-1" : "1"));
          p = std::isnan(p) ? 0 : std::clamp(p, -1.0, 1.0);
        }
        for (size_t k = 0; k < in.series.size(); ++k) {
          if (!in.series[k].has[i]) continue;
          double off = static_cast<double>(mix_hash(in.series[k].labels.hash())) /
                       static_cast<double>(std::numeric_limits<uint64_t>::max());
          bool keep = p >= 0 ? off < p : off >= 1 + p;
          if (!keep) continue;
          sel[k].has[i] = 1;
          sel[k].v[i] = in.series[k].v[i];
        }
        continue;
      }
      if (std::isnan(p) || std::fabs(p) >= 9.2e18)
        throw EvalError{ErrorType::kExecution, "Scalar value " + format_fixed(p) + " overflows int64"};
      int64_t kk = static_cast<int64_t>(p);
      if (kk < 1) continue;
      for (auto& g : acc) g.k.clear();
      for (size_t k = 0; k < in.series.size(); ++k)
        if (in.series[k].has[i]) acc[group_of[k]].k.push_back({in.series[k].v[i], k});
      for (auto& g : acc) {
        auto& v = g.k;
        size_t take = std::min<size_t>(v.size(), static_cast<size_t>(kk));
        if (a.op == AggOp::kTopk || a.op == AggOp::kBottomk) {
          bool top = a.op == AggOp::kTopk;
          // NaN sorts last for both; ties keep input order.
          std::stable_sort(v.begin(), v.end(), [top](const auto& x, const auto& y) {
            if (std::isnan(x.first)) return false;
            if (std::isnan(y.first)) return true;
            return top ? x.first > y.first : x.first < y.first;
          });
        }
        for (size_t j = 0; j < take; ++j) {
          sel[v[j].second].has[i] = 1;
          sel[v[j].second].v[i] = v[j].first;
          if (n == 1) order.push_back(v[j].second);
        }
      }
    }
    if (!order.empty()) {
      for (size_t k : order) out.series.push_back(std::move(sel[k]));
    } else {
      append_nonempty(sel, out.series);
    }
    account_step_node(before, inputs, out);
    return out;
  }

  if (a.op == AggOp::kCountValues) {
    std::map<std::pair<size_t, std::string>, size_t> out_of;  // (group, value text) -> output
    for (size_t i = 0; i < n; ++i) {
      check_deadline();  // Prometheus checks at every step
      std::map<std::pair<size_t, std::string>, double> counts;
      for (size_t k = 0; k < in.series.size(); ++k)
        if (in.series[k].has[i]) counts[{group_of[k], format_fixed(in.series[k].v[i])}] += 1;
      for (auto& [key, c] : counts) {
        auto it = out_of.find(key);
        if (it == out_of.end()) {
          std::vector<model::Label> pairs;
          for (const auto& p : groups[key.first].pairs())
            if (p.name != count_label) pairs.push_back(p);
          pairs.push_back({count_label, key.second});
          it = out_of.emplace(key, out.series.size()).first;
          out.series.push_back(empty_step_series(*model::Labels::make(std::move(pairs)), n));
        }
        out.series[it->second].has[i] = 1;
        out.series[it->second].v[i] = c;
      }
    }
    account_step_node(before, inputs, out);
    return out;
  }

  for (const auto& g : groups) out.series.push_back(empty_step_series(g, n));
  std::vector<Acc> acc(groups.size());
  for (size_t i = 0; i < n; ++i) {
    check_deadline();  // Prometheus checks at every step
    for (auto& g : acc) g = Acc{};
    for (size_t k = 0; k < in.series.size(); ++k) {
      if (!in.series[k].has[i]) continue;
      double v = in.series[k].v[i];
      Acc& g = acc[group_of[k]];
      bool first = !g.seen;
      g.seen = true;
      g.count += 1;
      switch (a.op) {
        case AggOp::kSum:
          g.value = first ? v : g.value + v;  // 2.42: a plain sum (3.x: Kahan)
          break;
        case AggOp::kAvg:
          g.mean.add(v);
          break;
        case AggOp::kMin:
          if (first || g.value > v || std::isnan(g.value)) g.value = v;
          break;
        case AggOp::kMax:
          if (first || g.value < v || std::isnan(g.value)) g.value = v;
          break;
        case AggOp::kStddev:
        case AggOp::kStdvar:
          g.welford.add(v);
          break;
        case AggOp::kQuantile:
          g.values.push_back(v);
          break;
        default:
          break;
      }
    }
    for (size_t gi = 0; gi < acc.size(); ++gi) {
      Acc& g = acc[gi];
      if (!g.seen) continue;
      double r = 0;
      switch (a.op) {
        case AggOp::kSum:
          r = g.value;
          break;
        case AggOp::kAvg:
          r = g.mean.value();
          break;
        case AggOp::kMin:
        case AggOp::kMax:
          r = g.value;
          break;
        case AggOp::kCount:
          r = g.count;
          break;
        case AggOp::kGroup:
          r = 1;
          break;
        case AggOp::kStddev:
          r = g.welford.stddev();
          break;
        case AggOp::kStdvar:
          r = g.welford.variance();
          break;
        case AggOp::kQuantile:
          r = quantile_of(param.series[0].v[i], std::move(g.values));
          break;
        default:
          break;
      }
      out.series[gi].has[i] = 1;
      out.series[gi].v[i] = r;
    }
  }
  drop_empty(out.series);
  account_step_node(before, inputs, out);
  return out;
}

}  // namespace llmon::promql::detail
