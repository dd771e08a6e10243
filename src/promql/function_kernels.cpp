// See function_kernels.h: the window and sample kernels, adapters from the
// pure functions of range_functions.h and instant_functions.h (Prometheus
// 2.42 promql/functions.go) to the kernel signatures.
#include "promql/function_kernels.h"

#include <cmath>
#include <limits>

namespace llmon::promql::detail {

namespace {

// rate and increase: extrapolated_rate's sum, in its order (0.0 for a
// negative first value, then the value before each reset inside the window),
// formed from the series' resets instead of a scan of the window.
std::optional<double> counter_rate(const RangeWindow& w, bool is_rate) {
  const SampleSpan s = w.samples;
  if (s.size() < 2) return std::nullopt;
  double result = s.back().v - s.front().v;
  if (s.front().v < 0) result += 0.0;
  for (uint32_t k : w.resets) result += w.series[k - 1].v;
  return extrapolate_rate_result(s, w.start_ms, w.end_ms, true, is_rate, result);
}

// Go's math.Max / math.Min as Prometheus's clamp_min / clamp_max call them.
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

}  // namespace

std::optional<double> window_rate(const RangeWindow& w) {
  return counter_rate(w, true);
}

std::optional<double> window_increase(const RangeWindow& w) {
  return counter_rate(w, false);
}

std::optional<double> window_delta(const RangeWindow& w) {
  return extrapolated_rate(w.samples, w.start_ms, w.end_ms, false, false);
}

std::optional<double> window_irate(const RangeWindow& w) {
  return instant_rate(w.samples, true);
}

std::optional<double> window_idelta(const RangeWindow& w) {
  return instant_rate(w.samples, false);
}

std::optional<double> window_quantile(const RangeWindow& w) {
  return quantile_over_time(w.params[0], w.samples);
}

std::optional<double> window_predict_linear(const RangeWindow& w) {
  return predict_linear(w.samples, w.params[0], w.end_ms + w.offset_ms);
}

std::optional<double> window_smoothing(const RangeWindow& w) {
  auto e = double_exponential_smoothing(w.samples, w.params[0], w.params[1]);
  if (!e) throw EvalError{ErrorType::kExecution, e.error()};
  return *e;
}

std::optional<double> sample_clamp(double x, const StepScalars& p) {
  if (p[1] < p[0]) return std::nullopt;
  return clamp(x, p[0], p[1]);
}

std::optional<double> sample_clamp_min(double x, const StepScalars& p) {
  return go_max(x, p[0]);
}

std::optional<double> sample_clamp_max(double x, const StepScalars& p) {
  return go_min(x, p[0]);
}

std::optional<double> sample_round(double x, const StepScalars& p) {
  return round_to(x, p.size() == 0 ? 1.0 : p[0]);
}

}  // namespace llmon::promql::detail
