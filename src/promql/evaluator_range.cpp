// Range functions (Prometheus 2.x engine.go eval *parser.Call with a range
// argument): each series' window at each step, the samples it holds
// counted as matrixIterSlice counts them, the entry's window kernel
// (function_kernels.h) applied to each non-empty window. The function is
// resolved from its table entry once per call; per window only the kernel
// runs (avg/sum_over_time: kLanes windows per kernel call).
#include <algorithm>
#include <span>

#include "promql/evaluator.h"
#include "promql/function_kernels.h"

namespace llmon::promql::detail {

EvalValue Evaluator::eval_range_function(const Call& c, const EvalValue& m, const MatrixSelector* ms, int64_t held) {
  // The entry's kernel and properties, read once.
  const FunctionImpl::WindowKernel window_kernel = c.func->impl.window;
  const FunctionImpl::LanesKernel lanes_kernel = c.func->impl.lanes;
  const bool counter = c.func->impl.counter_resets;
  const FunctionImpl::RangeOutput output = c.func->impl.range_output;
  const size_t n = steps_;
  // Scalar arguments besides the matrix, evaluated per step.
  std::vector<EvalValue> scalars;
  for (const auto& a : c.args)
    if (type_of(*a) == ValueType::kScalar) scalars.push_back(eval_scalar_arg(*a));

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
  const bool absent = output == FunctionImpl::RangeOutput::kAbsent;
  std::vector<uint8_t> found(absent ? n : 0, 0);  // absent_over_time: steps with samples
  const bool keep_name = output == FunctionImpl::RangeOutput::kKeepName;

  auto process = [&](const RawSeries& rs) {
    check_deadline();
    StepSeries o = absent ? StepSeries{} : empty_step_series(keep_name ? rs.labels : drop_metric_name(rs.labels), n);
    const auto& smp = rs.samples;
    size_t lo = 0, hi = 0;
    int64_t window = 0, outputs = 0;
    // counter_resets (rate, increase): where the series' counter resets are
    // (index k with v[k] < v[k-1]); [reset_lo, reset_hi) are the window's.
    std::vector<uint32_t> reset_at;
    size_t reset_lo = 0, reset_hi = 0;
    if (counter) {
      for (size_t k = 1; k < smp.size(); ++k)
        if (smp[k].v < smp[k - 1].v) reset_at.push_back(static_cast<uint32_t>(k));
    }
    // Lanes kernels (avg_over_time, sum_over_time): kLanes windows at a time.
    SampleSpan lane_w[kLanes];
    size_t lane_i[kLanes], lanes_queued = 0;
    auto flush_lanes = [&] {
      if (lanes_queued == 0) return;
      double res[kLanes];
      lanes_kernel(std::span<const SampleSpan>(lane_w, lanes_queued), res);
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
      if (lanes_kernel) {
        lane_w[lanes_queued] = w;
        lane_i[lanes_queued++] = i;
        ++outputs;
        if (lanes_queued == kLanes) flush_lanes();
        continue;
      }
      if (counter) {
        // Both ends only move forward, as lo and hi do.
        while (reset_lo < reset_at.size() && reset_at[reset_lo] <= lo) ++reset_lo;
        reset_hi = std::max(reset_hi, reset_lo);
        while (reset_hi < reset_at.size() && reset_at[reset_hi] < hi) ++reset_hi;
      }
      std::optional<double> v =
          window_kernel(RangeWindow{w, start, r, offset_ms, StepScalars(scalars, i), smp.data(),
                                    std::span<const uint32_t>(reset_at.data() + reset_lo, reset_hi - reset_lo)});
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

}  // namespace llmon::promql::detail
