// Function calls (Prometheus 2.x engine.go eval *parser.Call): dispatch on
// the call's table entry (function_table.h), once per call node, to the
// range-function loop (evaluator_range.cpp), the per-value loop below (value
// and per-sample functions) or a whole-call kernel (call_kernels.cpp), and
// the CallScope those kernels see.
// Every function but a range one is evaluated as Prometheus's rangeEval
// counts it: the arguments' values present at each step and the outputs.
#include <optional>

#include "promql/evaluator.h"
#include "promql/function_kernels.h"

namespace llmon::promql::detail {

namespace {

// Value and per-sample functions: `apply(value, scalars at the step)` on
// each value of the instant-vector argument; the metric name dropped, the
// values it gives none for removed. Without a vector argument (the date
// functions' optional one) the vector is vector(time()). A template, so that
// each kind's loop calls its kernel directly.
template <typename Apply>
EvalValue map_values(CallScope& scope, Apply apply) {
  const size_t n = scope.steps();
  std::vector<EvalValue> scalars;
  EvalValue v;
  bool have_vector = false;
  for (const auto& a : scope.call().args) {
    if (type_of(*a) == ValueType::kVector && !have_vector) {
      v = scope.eval(*a);
      have_vector = true;
    } else {
      scalars.push_back(scope.eval_scalar(*a));
    }
  }
  if (!have_vector) {
    StepSeries s = empty_step_series({}, n);
    for (size_t i = 0; i < n; ++i) {
      s.has[i] = 1;
      s.v[i] = static_cast<double>(scope.step_time(i)) / 1000.0;
    }
    v.type = ValueType::kVector;
    v.series.push_back(std::move(s));
  }
  for (auto& s : v.series) {
    s.labels = drop_metric_name(s.labels);
    for (size_t i = 0; i < n; ++i) {
      if (!s.has[i]) continue;
      const std::optional<double> r = apply(s.v[i], StepScalars(scalars, i));
      if (r) {
        s.v[i] = *r;
      } else {
        s.has[i] = 0;
      }
    }
  }
  drop_empty(v.series);
  scope.merge_same_labels(v.series);
  v.type = ValueType::kVector;
  return v;
}

EvalValue per_sample(CallScope& scope, const FunctionImpl& impl) {
  if (impl.kind == FunctionImpl::Kind::kValue) {
    const FunctionImpl::ValueKernel f = impl.value;
    return map_values(scope, [f](double x, const StepScalars&) { return std::optional<double>(f(x)); });
  }
  return map_values(scope, impl.sample);
}

}  // namespace

CallScope::CallScope(Evaluator& ev, const Call& call) : ev_(ev), call_(call), before_(ev.ctx_.samples) {}

size_t CallScope::steps() const {
  return ev_.steps();
}

int64_t CallScope::step_time(size_t i) const {
  return ev_.step_time(i);
}

EvalValue CallScope::eval(const Expr& e) {
  EvalValue v = ev_.eval(e);
  ev_.add_present(v, inputs_);
  return v;
}

EvalValue CallScope::eval_scalar(const Expr& e) {
  EvalValue v = ev_.eval_scalar_arg(e);
  ev_.add_present(v, inputs_);
  return v;
}

std::string CallScope::string_arg(size_t k) {
  return ev_.eval(*call_.args[k]).str;
}

EvalValue CallScope::sample_times(const VectorSelector& vs) {
  EvalValue v = ev_.eval_vector_selector(vs, true);
  ev_.ctx_.samples = before_;
  ev_.add_present(v, inputs_);
  return v;
}

EvalValue CallScope::scalar(double v) const {
  return ev_.scalar_value(v);
}

void CallScope::merge_same_labels(std::vector<StepSeries>& series) const {
  ev_.merge_same_labels(series);
}

EvalValue Evaluator::eval_call(const Call& c) {
  const FunctionInfo& f = *c.func;
  if (f.histogram_only)
    throw EvalError{ErrorType::kBadData, "native histograms are not supported: function \"" + std::string(f.name) +
                                             "\" works on native histograms only, and llmon stores float samples"};
  switch (f.impl.kind) {
    case FunctionImpl::Kind::kRange:
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
    case FunctionImpl::Kind::kValue:
    case FunctionImpl::Kind::kSample:
    case FunctionImpl::Kind::kCall: {
      CallScope scope(*this, c);
      EvalValue out = f.impl.kind == FunctionImpl::Kind::kCall ? f.impl.call(scope) : per_sample(scope, f.impl);
      account_step_node(scope.before_, scope.inputs_, out);
      return out;
    }
    case FunctionImpl::Kind::kNone:
      break;
  }
  throw EvalError{ErrorType::kInternal, "function \"" + std::string(f.name) + "\" is not implemented"};
}

}  // namespace llmon::promql::detail
