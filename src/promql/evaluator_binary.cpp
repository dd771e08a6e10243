// Binary operators (Prometheus 2.x engine.go: VectorBinop, VectorAnd/Or/
// Unless, VectorscalarBinop, scalarBinop): arithmetic, comparisons (filter
// or `bool`), set operators, on/ignoring matching, group_left/group_right,
// the __name__ rules and the matching errors in Prometheus's wording.
// Signatures are computed once per series; matching is redone per step only
// over the series present at that step.
#include <cmath>
#include <string>
#include <unordered_map>

#include "promql/evaluator.h"

namespace llmon::promql::detail {

namespace {

bool drops_metric_name(BinOp op) {
  switch (op) {
    case BinOp::kAdd:
    case BinOp::kSub:
    case BinOp::kMul:
    case BinOp::kDiv:
    case BinOp::kMod:
    case BinOp::kPow:
      return true;
    default:
      return false;  // atan2 keeps the name in Prometheus 2 (3.x drops it)
  }
}

// vectorElemBinop: (value, keep). Comparisons keep lhs when true.
std::pair<double, bool> elem(BinOp op, double l, double r) {
  switch (op) {
    case BinOp::kAdd:
      return {l + r, true};
    case BinOp::kSub:
      return {l - r, true};
    case BinOp::kMul:
      return {l * r, true};
    case BinOp::kDiv:
      return {l / r, true};
    case BinOp::kMod:
      return {std::fmod(l, r), true};
    case BinOp::kPow:
      return {std::pow(l, r), true};
    case BinOp::kAtan2:
      return {std::atan2(l, r), true};
    case BinOp::kEql:
      return {l, l == r};
    case BinOp::kNeq:
      return {l, l != r};
    case BinOp::kGtr:
      return {l, l > r};
    case BinOp::kLss:
      return {l, l < r};
    case BinOp::kGte:
      return {l, l >= r};
    case BinOp::kLte:
      return {l, l <= r};
    default:
      break;
  }
  throw EvalError{ErrorType::kInternal, "operator \"" + std::string(binop_text(op)) + "\" not allowed here"};
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  for (const auto& x : v)
    if (x == s) return true;
  return false;
}

// The labels a series is matched on: `on` keeps only the listed ones;
// `ignoring` (or nothing) drops the listed ones and __name__.
model::Labels match_labels(const model::Labels& l, const VectorMatching& m) {
  std::vector<model::Label> out;
  for (const auto& p : l.pairs()) {
    bool listed = contains(m.labels, p.name);
    if (m.on ? listed : (!listed && p.name != "__name__")) out.push_back(p);
  }
  return *model::Labels::make(std::move(out));
}

std::string signature(const model::Labels& l, const VectorMatching& m) {
  std::string sig;
  model::Labels ml = match_labels(l, m);
  for (const auto& p : ml.pairs()) {
    sig += p.name;
    sig += '\xff';
    sig += p.value;
    sig += '\xff';
  }
  return sig;
}

// Interns signatures to small integers.
struct SigTable {
  std::unordered_map<std::string, int> ids;
  int id(const std::string& s) { return ids.emplace(s, static_cast<int>(ids.size())).first->second; }
};

model::Labels result_metric(const model::Labels& lhs, const model::Labels& rhs, BinOp op, const VectorMatching& m,
                            bool return_bool) {
  std::vector<model::Label> out;
  for (const auto& p : lhs.pairs()) {
    if (p.name == "__name__" && (drops_metric_name(op) || return_bool)) continue;
    if (m.card == VectorMatching::Card::kOneToOne) {
      bool listed = contains(m.labels, p.name);
      if (m.on ? !listed : listed) continue;
    }
    if (contains(m.include, p.name)) continue;
    out.push_back(p);
  }
  for (const auto& name : m.include) {
    auto v = rhs.get(name);
    if (!v.empty()) out.push_back({name, std::string(v)});
  }
  return *model::Labels::make(std::move(out));
}

}  // namespace

EvalValue Evaluator::eval_binary(const BinaryExpr& b) {
  const int64_t before = ctx_.samples;
  EvalValue l = eval(*b.lhs);
  EvalValue r = eval(*b.rhs);
  const size_t n = steps_;
  auto is_num = [](const EvalValue& v) { return v.type == ValueType::kScalar || v.type == ValueType::kVector; };
  if (!is_num(l) || !is_num(r))
    throw EvalError{ErrorType::kBadData, "binary expression must contain only scalar and instant vector types"};
  // rangeEval's accounting: both sides held, and at each step the values
  // present on both sides plus the outputs so far.
  std::vector<int64_t> inputs;
  add_present(l, inputs);
  add_present(r, inputs);

  if (l.type == ValueType::kScalar && r.type == ValueType::kScalar) {
    EvalValue out = scalar_value(0);
    for (size_t i = 0; i < n; ++i) {
      auto [v, keep] = elem(b.op, l.series[0].v[i], r.series[0].v[i]);
      out.series[0].v[i] = is_comparison(b.op) ? (keep ? 1 : 0) : v;
    }
    account_step_node(before, inputs, out);
    return out;
  }

  if (l.type == ValueType::kScalar || r.type == ValueType::kScalar) {
    bool swap = l.type == ValueType::kScalar;  // the scalar is on the left
    EvalValue& vec = swap ? r : l;
    const StepSeries& sc = (swap ? l : r).series[0];
    EvalValue out;
    out.type = ValueType::kVector;
    bool drop = drops_metric_name(b.op) || b.return_bool;
    for (auto& s : vec.series) {
      StepSeries o = empty_step_series(drop ? drop_metric_name(s.labels) : s.labels, n);
      bool any = false;
      for (size_t i = 0; i < n; ++i) {
        if (!s.has[i]) continue;
        double lv = s.v[i], rv = sc.v[i];
        if (swap) std::swap(lv, rv);
        auto [v, keep] = elem(b.op, lv, rv);
        if (is_comparison(b.op) && swap) v = rv;  // keep the vector's value
        if (b.return_bool) {
          v = keep ? 1 : 0;
          keep = true;
        }
        if (!keep) continue;
        o.has[i] = 1;
        o.v[i] = v;
        any = true;
      }
      if (any) out.series.push_back(std::move(o));
    }
    merge_same_labels(out.series);
    account_step_node(before, inputs, out);
    return out;
  }

  // Vector / vector.
  VectorMatching m = b.matching.value_or(VectorMatching{});
  EvalValue out;
  out.type = ValueType::kVector;
  SigTable sigs;
  std::vector<int> lsig(l.series.size()), rsig(r.series.size());
  for (size_t i = 0; i < l.series.size(); ++i) lsig[i] = sigs.id(signature(l.series[i].labels, m));
  for (size_t i = 0; i < r.series.size(); ++i) rsig[i] = sigs.id(signature(r.series[i].labels, m));
  const size_t nsig = sigs.ids.size();

  if (is_set_operator(b.op)) {
    // Output series are input series, unchanged: lhs first, then rhs (or).
    std::vector<StepSeries> lo(l.series.size()), ro;
    for (size_t k = 0; k < l.series.size(); ++k) lo[k] = empty_step_series(l.series[k].labels, n);
    if (b.op == BinOp::kOr) {
      ro.resize(r.series.size());
      for (size_t k = 0; k < r.series.size(); ++k) ro[k] = empty_step_series(r.series[k].labels, n);
    }
    std::vector<uint8_t> in_r(nsig), in_l(nsig);
    for (size_t i = 0; i < n; ++i) {
      check_deadline();  // Prometheus checks at every step
      std::fill(in_r.begin(), in_r.end(), 0);
      std::fill(in_l.begin(), in_l.end(), 0);
      for (size_t k = 0; k < r.series.size(); ++k)
        if (r.series[k].has[i]) in_r[rsig[k]] = 1;
      for (size_t k = 0; k < l.series.size(); ++k) {
        if (!l.series[k].has[i]) continue;
        in_l[lsig[k]] = 1;
        bool keep = b.op == BinOp::kOr || (b.op == BinOp::kAnd ? in_r[lsig[k]] != 0 : in_r[lsig[k]] == 0);
        if (!keep) continue;
        lo[k].has[i] = 1;
        lo[k].v[i] = l.series[k].v[i];
      }
      if (b.op == BinOp::kOr) {
        for (size_t k = 0; k < r.series.size(); ++k) {
          if (!r.series[k].has[i] || in_l[rsig[k]]) continue;
          ro[k].has[i] = 1;
          ro[k].v[i] = r.series[k].v[i];
        }
      }
    }
    append_nonempty(lo, out.series);
    append_nonempty(ro, out.series);
    merge_same_labels(out.series);
    account_step_node(before, inputs, out);
    return out;
  }

  const bool one_to_many = m.card == VectorMatching::Card::kOneToMany;
  const bool one_to_one = m.card == VectorMatching::Card::kOneToOne;
  // After the swap, `many` is matched against the unique `one` side.
  const EvalValue& many = one_to_many ? r : l;
  const EvalValue& one = one_to_many ? l : r;
  const std::vector<int>& many_sig = one_to_many ? rsig : lsig;
  const std::vector<int>& one_sig = one_to_many ? lsig : rsig;

  std::unordered_map<uint64_t, size_t> out_of_pair;               // many idx * |one| + one idx -> output
  std::unordered_map<uint64_t, std::vector<size_t>> out_by_hash;  // labels hash -> outputs
  std::vector<int> out_sig;
  std::vector<int> one_at(nsig, -1);
  std::vector<size_t> step_mark;  // output index -> last step written + 1
  std::vector<uint8_t> sig_used(nsig);
  for (size_t i = 0; i < n; ++i) {
    check_deadline();  // Prometheus checks at every step
    std::fill(one_at.begin(), one_at.end(), -1);
    std::fill(sig_used.begin(), sig_used.end(), 0);
    for (size_t k = 0; k < one.series.size(); ++k) {
      if (!one.series[k].has[i]) continue;
      int s = one_sig[k];
      if (one_at[s] >= 0) {
        const auto& other = one.series[static_cast<size_t>(one_at[s])].labels;
        throw EvalError{ErrorType::kExecution,
                        "found duplicate series for the match group " +
                            match_labels(one.series[k].labels, m).to_string() + " on the " +
                            (one_to_many ? "left" : "right") + " hand-side of the operation: [" +
                            one.series[k].labels.to_string() + ", " + other.to_string() +
                            "];many-to-many matching not allowed: matching labels must be unique on one side"};
      }
      one_at[s] = static_cast<int>(k);
    }
    for (size_t k = 0; k < many.series.size(); ++k) {
      if (!many.series[k].has[i]) continue;
      int s = many_sig[k];
      if (one_at[s] < 0) continue;
      size_t ok = static_cast<size_t>(one_at[s]);
      double fl = many.series[k].v[i], fr = one.series[ok].v[i];
      if (one_to_many) std::swap(fl, fr);
      auto [v, keep] = elem(b.op, fl, fr);
      if (b.return_bool) {
        v = keep ? 1 : 0;
      } else if (!keep) {
        continue;
      }
      uint64_t pair_key = static_cast<uint64_t>(k) * one.series.size() + ok;
      auto it = out_of_pair.find(pair_key);
      size_t oi;
      if (it != out_of_pair.end()) {
        oi = it->second;
      } else {
        model::Labels lab = result_metric(many.series[k].labels, one.series[ok].labels, b.op, m, b.return_bool);
        auto& cands = out_by_hash[lab.hash()];
        oi = out.series.size();
        for (size_t c : cands)
          if (out.series[c].labels == lab) oi = c;
        if (oi == out.series.size()) {
          cands.push_back(oi);
          out.series.push_back(empty_step_series(std::move(lab), n));
          out_sig.push_back(s);
          step_mark.push_back(0);
        }
        out_of_pair.emplace(pair_key, oi);
      }
      if (one_to_one) {
        if (sig_used[s])
          throw EvalError{
              ErrorType::kExecution,
              "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)"};
        sig_used[s] = 1;
      }
      if (step_mark[oi] == i + 1) {
        throw EvalError{ErrorType::kExecution, out_sig[oi] == s && !one_to_one
                                                   ? "multiple matches for labels: grouping labels must ensure unique "
                                                     "matches"
                                                   : "vector cannot contain metrics with the same labelset"};
      }
      step_mark[oi] = i + 1;
      out_sig[oi] = s;
      out.series[oi].has[i] = 1;
      out.series[oi].v[i] = v;
    }
  }
  account_step_node(before, inputs, out);
  return out;
}

}  // namespace llmon::promql::detail
