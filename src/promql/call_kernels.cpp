// See function_kernels.h: the whole-call kernels (Prometheus 2.x
// promql/functions.go) — time, pi, vector, scalar, absent, timestamp, sort*,
// label_replace, label_join, histogram_quantile and histogram_fraction. The
// numeric and label work is in histogram_functions / label_functions; these
// do the steps, the labels and the __name__ rules (timestamp drops it,
// sort* and label_* keep it).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numbers>
#include <string_view>

#include "promql/evaluator.h"
#include "promql/function_kernels.h"
#include "promql/histogram_functions.h"
#include "promql/label_functions.h"

namespace llmon::promql::detail {

namespace {

EvalValue vector_value() {
  EvalValue out;
  out.type = ValueType::kVector;
  return out;
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

// sort / sort_desc: by value, NaN last; only an instant query is sorted.
EvalValue sort_by_value(CallScope& s, bool desc) {
  EvalValue v = s.arg(0);
  if (s.steps() == 1) {
    std::stable_sort(v.series.begin(), v.series.end(), [desc](const StepSeries& a, const StepSeries& b) {
      double x = a.v[0], y = b.v[0];
      if (std::isnan(x)) return false;
      if (std::isnan(y)) return true;
      return desc ? x > y : x < y;
    });
  }
  return v;
}

// sort_by_label / sort_by_label_desc: by the named labels in natural order,
// then by all labels.
EvalValue sort_by_labels(CallScope& s, bool desc) {
  EvalValue v = s.arg(0);
  std::vector<std::string> names;
  for (size_t k = 1; k < s.call().args.size(); ++k) names.push_back(s.string_arg(k));
  std::stable_sort(v.series.begin(), v.series.end(), [&](const StepSeries& a, const StepSeries& b) {
    for (const auto& name : names) {
      auto x = a.labels.get(name), y = b.labels.get(name);
      if (x == y) continue;
      return desc ? natural_less(y, x) : natural_less(x, y);
    }
    return desc ? b.labels < a.labels : a.labels < b.labels;
  });
  return v;
}

// histogram_quantile(q, v) / histogram_fraction(lower, upper, v) over the
// classic buckets of `v`, grouped by their labels without `le` and __name__
// (series without a parsable `le` are ignored).
EvalValue over_buckets(CallScope& s, bool fraction) {
  const size_t n = s.steps();
  EvalValue p1 = s.scalar_arg(0);
  EvalValue p2 = fraction ? s.scalar_arg(1) : EvalValue{};
  EvalValue v = s.arg(fraction ? 2 : 1);
  EvalValue out = vector_value();
  LabelSetIndex index;
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
    std::vector<model::Label> pairs;
    for (const auto& p : v.series[k].labels.pairs())
      if (p.name != "le" && p.name != "__name__") pairs.push_back(p);
    member[k] = {index.add(*model::Labels::make(std::move(pairs))), ub};
  }
  const std::vector<model::Labels> groups = index.take();
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
  return out;
}

}  // namespace

model::Labels absent_labels(const Expr& arg) {
  const Expr& e = arg;
  const VectorSelector* vs = std::get_if<VectorSelector>(&e.node);
  if (const auto* ms = std::get_if<MatrixSelector>(&e.node)) vs = std::get_if<VectorSelector>(&ms->selector->node);
  if (vs == nullptr) return {};
  std::map<std::string, std::string> out;
  std::map<std::string, bool> has;
  for (const auto& m : vs->matchers) {
    if (m.name == "__name__") continue;
    if (m.type == model::Matcher::Type::kEq && !has[m.name]) {
      out[m.name] = m.value;
      has[m.name] = true;
    } else {
      out.erase(m.name);
    }
  }
  std::vector<model::Label> pairs;
  for (auto& [k, v] : out) pairs.push_back({k, v});
  return *model::Labels::make(std::move(pairs));
}

EvalValue call_time(CallScope& s) {
  EvalValue v = s.scalar(0);
  for (size_t i = 0; i < s.steps(); ++i) v.series[0].v[i] = static_cast<double>(s.step_time(i)) / 1000.0;
  return v;
}

EvalValue call_pi(CallScope& s) {
  return s.scalar(std::numbers::pi);
}

EvalValue call_vector(CallScope& s) {
  EvalValue v = s.scalar_arg(0);
  EvalValue out = vector_value();
  out.series.push_back(std::move(v.series[0]));
  return out;
}

// The value of the only series present at a step; NaN at steps with none or several.
EvalValue call_scalar(CallScope& s) {
  EvalValue v = s.arg(0);
  EvalValue out = s.scalar(std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < s.steps(); ++i) {
    int cnt = 0;
    double val = 0;
    for (const auto& ss : v.series)
      if (ss.has[i]) {
        ++cnt;
        val = ss.v[i];
      }
    if (cnt == 1) out.series[0].v[i] = val;
  }
  return out;
}

// 1 at the steps where the argument has no value.
EvalValue call_absent(CallScope& s) {
  const size_t n = s.steps();
  EvalValue v = s.arg(0);
  EvalValue out = vector_value();
  StepSeries a = empty_step_series(absent_labels(*s.call().args[0]), n);
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    bool present = false;
    for (const auto& ss : v.series) present |= ss.has[i] != 0;
    if (!present) {
      a.has[i] = 1;
      a.v[i] = 1;
      any = true;
    }
  }
  if (any) out.series.push_back(std::move(a));
  return out;
}

// A selector's samples' own times; any other vector's values get the step time.
EvalValue call_timestamp(CallScope& s) {
  const Expr& arg = unwrap_parens(*s.call().args[0]);
  EvalValue v;
  if (const auto* vs = std::get_if<VectorSelector>(&arg.node)) {
    v = s.sample_times(*vs);
  } else {
    v = s.eval(arg);
    for (auto& ss : v.series)
      for (size_t i = 0; i < s.steps(); ++i) ss.v[i] = static_cast<double>(s.step_time(i)) / 1000.0;
  }
  for (auto& ss : v.series) ss.labels = drop_metric_name(ss.labels);
  s.merge_same_labels(v.series);
  return v;
}

EvalValue call_sort(CallScope& s) {
  return sort_by_value(s, false);
}

EvalValue call_sort_desc(CallScope& s) {
  return sort_by_value(s, true);
}

EvalValue call_sort_by_label(CallScope& s) {
  return sort_by_labels(s, false);
}

EvalValue call_sort_by_label_desc(CallScope& s) {
  return sort_by_labels(s, true);
}

EvalValue call_label_replace(CallScope& s) {
  EvalValue v = s.arg(0);
  std::string dst = s.string_arg(1), repl = s.string_arg(2), src = s.string_arg(3), re = s.string_arg(4);
  auto r = LabelReplacer::make(dst, repl, src, re);
  if (!r) throw EvalError{ErrorType::kExecution, r.error()};
  for (auto& ss : v.series) ss.labels = r->apply(ss.labels);
  s.merge_same_labels(v.series);
  return v;
}

EvalValue call_label_join(CallScope& s) {
  EvalValue v = s.arg(0);
  std::string dst = s.string_arg(1), sep = s.string_arg(2);
  std::vector<std::string> srcs;
  for (size_t k = 3; k < s.call().args.size(); ++k) srcs.push_back(s.string_arg(k));
  for (auto& ss : v.series) {
    auto l = label_join(ss.labels, dst, sep, srcs);
    if (!l) throw EvalError{ErrorType::kExecution, l.error()};
    ss.labels = std::move(*l);
  }
  s.merge_same_labels(v.series);
  return v;
}

EvalValue call_histogram_quantile(CallScope& s) {
  return over_buckets(s, false);
}

EvalValue call_histogram_fraction(CallScope& s) {
  return over_buckets(s, true);
}

}  // namespace llmon::promql::detail
