// See range_functions.h. Semantics: Prometheus 2.42 promql/functions.go
// (extrapolatedRate, instantValue, aggrOverTime users, linearRegression,
// funcHoltWinters), 3.x for mad_over_time.
#include "promql/range_functions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "promql/aggregate_math.h"

namespace llmon::promql {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Go's time.Duration.Seconds() for a whole number of milliseconds: whole
// seconds plus the nanosecond remainder / 1e9, which can differ in the last
// bit from ms / 1000.0.
double duration_seconds(int64_t ms) {
  const int64_t sec = ms / 1000;
  const int64_t rem_ns = (ms % 1000) * 1000000;
  return static_cast<double>(sec) + static_cast<double>(rem_ns) / 1e9;
}

std::vector<double> values_of(SampleSpan s) {
  std::vector<double> v;
  v.reserve(s.size());
  for (const auto& p : s) v.push_back(p.v);
  return v;
}

struct Regression {
  double slope;
  double intercept;
};

// Prometheus's linearRegression: x = (t - intercept_t_ms) / 1e3, Kahan sums.
// Requires s.size() >= 1.
Regression linear_regression(SampleSpan s, int64_t intercept_t_ms) {
  double n = 0;
  KahanSum sum_x, sum_y, sum_xy, sum_x2;
  const double init_y = s.front().v;
  bool const_y = true;
  for (size_t i = 0; i < s.size(); i++) {
    const double y = s[i].v;
    if (const_y && i > 0 && y != init_y) const_y = false;
    n += 1.0;
    const double x = static_cast<double>(s[i].t_ms - intercept_t_ms) / 1e3;
    sum_x.add(x);
    sum_y.add(y);
    sum_xy.add(x * y);
    sum_x2.add(x * x);
  }
  if (const_y) {
    if (std::isinf(init_y)) return {kNaN, kNaN};
    return {0, init_y};
  }
  // Prometheus adds the compensation back unconditionally here (no Inf check).
  const double sx = sum_x.sum + sum_x.c;
  const double sy = sum_y.sum + sum_y.c;
  const double sxy = sum_xy.sum + sum_xy.c;
  const double sx2 = sum_x2.sum + sum_x2.c;
  const double cov_xy = sxy - sx * sy / n;
  const double var_x = sx2 - sx * sx / n;
  const double slope = cov_xy / var_x;
  const double intercept = sy / n - slope * sx / n;
  return {slope, intercept};
}

// Go's fmt "%f": six decimals, "+Inf" / "-Inf" / "NaN" for the specials.
std::string go_percent_f(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

// Prometheus's calcTrendValue.
double trend_value(size_t i, double tf, double s0, double s1, double b) {
  if (i == 0) return b;
  const double x = tf * (s1 - s0);
  const double y = (1 - tf) * b;
  return x + y;
}

}  // namespace

std::optional<double> extrapolated_rate(SampleSpan s, int64_t range_start_ms, int64_t range_end_ms, bool is_counter,
                                        bool is_rate) {
  if (s.size() < 2) return std::nullopt;
  double result = s.back().v - s.front().v;
  if (is_counter) {
    double prev = 0;  // 2.42 starts from 0; a negative first value adds 0.
    for (const auto& p : s) {
      if (p.v < prev) result += prev;
      prev = p.v;
    }
  }
  return extrapolate_rate_result(s, range_start_ms, range_end_ms, is_counter, is_rate, result);
}

std::optional<double> extrapolate_rate_result(SampleSpan s, int64_t range_start_ms, int64_t range_end_ms,
                                              bool is_counter, bool is_rate, double result) {
  if (s.size() < 2) return std::nullopt;
  const auto& first = s.front();
  const auto& last = s.back();
  double duration_to_start = static_cast<double>(first.t_ms - range_start_ms) / 1000;
  const double duration_to_end = static_cast<double>(range_end_ms - last.t_ms) / 1000;
  const double sampled_interval = static_cast<double>(last.t_ms - first.t_ms) / 1000;
  const double average_interval = sampled_interval / static_cast<double>(s.size() - 1);

  if (is_counter && result > 0 && first.v >= 0) {
    // Do not extrapolate the counter below zero.
    const double duration_to_zero = sampled_interval * (first.v / result);
    if (duration_to_zero < duration_to_start) duration_to_start = duration_to_zero;
  }
  const double threshold = average_interval * 1.1;
  double extrapolate_to = sampled_interval;
  extrapolate_to += duration_to_start < threshold ? duration_to_start : average_interval / 2;
  extrapolate_to += duration_to_end < threshold ? duration_to_end : average_interval / 2;
  double factor = extrapolate_to / sampled_interval;
  if (is_rate) factor /= duration_seconds(range_end_ms - range_start_ms);
  return result * factor;
}

std::optional<double> instant_rate(SampleSpan s, bool is_rate) {
  if (s.size() < 2) return std::nullopt;
  const auto& last = s[s.size() - 1];
  const auto& prev = s[s.size() - 2];
  double result;
  if (is_rate && last.v < prev.v) {
    result = last.v;  // Counter reset.
  } else {
    result = last.v - prev.v;
  }
  const int64_t interval_ms = last.t_ms - prev.t_ms;
  if (interval_ms == 0) return std::nullopt;
  if (is_rate) result /= static_cast<double>(interval_ms) / 1000;
  return result;
}

double sum_over_time(SampleSpan s) {
  if (s.empty()) return kNaN;
  KahanSum sum;
  for (const auto& p : s) sum.add(p.v);
  return sum.value();
}

double avg_over_time(SampleSpan s) {
  if (s.empty()) return kNaN;
  double mean = 0, c = 0, count = 0;
  for (const auto& p : s) {
    count++;
    if (std::isinf(mean)) {
      if (std::isinf(p.v) && (mean > 0) == (p.v > 0)) continue;
      if (!std::isinf(p.v) && !std::isnan(p.v)) continue;
    }
    kahan_sum_inc(p.v / count - mean / count, mean, c);
  }
  return std::isinf(mean) ? mean : mean + c;
}

namespace {

// Runs step(lane, value) over kLanes windows: the common length without
// bounds checks, the rest lane by lane. Unused lanes are empty.
template <class Step>
void for_each_lane_sample(std::span<const SampleSpan> windows, Step step) {
  const model::Sample* p[kLanes] = {};
  size_t len[kLanes] = {};
  size_t common = SIZE_MAX, longest = 0;
  for (size_t l = 0; l < kLanes; ++l) {
    if (l < windows.size()) {
      p[l] = windows[l].data();
      len[l] = windows[l].size();
    }
    common = std::min(common, len[l]);
    longest = std::max(longest, len[l]);
  }
  for (size_t j = 0; j < common; ++j) {
    step(0, p[0][j].v);
    step(1, p[1][j].v);
    step(2, p[2][j].v);
    step(3, p[3][j].v);
  }
  for (size_t j = common; j < longest; ++j) {
    for (size_t l = 0; l < kLanes; ++l)
      if (j < len[l]) step(l, p[l][j].v);
  }
}

}  // namespace

namespace {

// Two doubles in one SSE2 register (x86-64's baseline; GCC vector extensions
// elsewhere): IEEE +, -, / on them round exactly as the scalar operations, so
// the results stay bit for bit; the divider takes two lanes at once.
using V2 = double __attribute__((vector_size(16)));
using M2 = long long __attribute__((vector_size(16)));

inline V2 vabs(V2 x) {
  return x < 0 ? -x : x;  // only compared: the sign of a NaN does not matter
}

// One avg_over_time step on two lanes whose mean is finite (so 2.42's
// infinite-mean rule does not apply): kahan_sum_inc(v/n - mean/n, mean, c).
// Returns whether a new mean is infinite.
inline bool avg_step2(V2& mean, V2& c, V2 v, V2 n) {
  V2 inc = v / n - mean / n;
  V2 t = mean + inc;
  M2 big = vabs(mean) >= vabs(inc);
  V2 lost = big ? (mean - t) + inc : (inc - t) + mean;
  M2 inf = (t == __builtin_inf()) | (t == -__builtin_inf());
  c = inf ? V2{0, 0} : c + lost;
  mean = t;
  return inf[0] || inf[1];
}

}  // namespace

void avg_over_time_lanes(std::span<const SampleSpan> windows, double* out) {
  static_assert(kLanes == 4);
  double mean[kLanes] = {}, c[kLanes] = {}, count[kLanes] = {};
  // The samples every lane has, two lanes to a register, while the means are
  // finite; the rest (and everything after an infinite mean) lane by lane.
  size_t start = 0;
  if (windows.size() == kLanes) {
    size_t common = windows[0].size();
    for (const auto& w : windows) common = std::min(common, w.size());
    V2 m01 = {0, 0}, m23 = {0, 0}, c01 = {0, 0}, c23 = {0, 0}, n = {0, 0};
    size_t j = 0;
    while (j < common) {
      n += 1.0;
      V2 x01 = {windows[0][j].v, windows[1][j].v}, x23 = {windows[2][j].v, windows[3][j].v};
      bool inf = avg_step2(m01, c01, x01, n);
      inf |= avg_step2(m23, c23, x23, n);
      ++j;
      if (inf) break;
    }
    mean[0] = m01[0], mean[1] = m01[1], mean[2] = m23[0], mean[3] = m23[1];
    c[0] = c01[0], c[1] = c01[1], c[2] = c23[0], c[3] = c23[1];
    for (double& k : count) k = static_cast<double>(j);
    start = j;
  }
  for (size_t l = 0; l < windows.size() && l < kLanes; ++l) {
    for (size_t j = start; j < windows[l].size(); ++j) {
      double v = windows[l][j].v;
      count[l]++;
      if (std::isinf(mean[l])) {  // as avg_over_time
        if (std::isinf(v) && (mean[l] > 0) == (v > 0)) continue;
        if (!std::isinf(v) && !std::isnan(v)) continue;
      }
      kahan_sum_inc(v / count[l] - mean[l] / count[l], mean[l], c[l]);
    }
    out[l] = windows[l].empty() ? kNaN : std::isinf(mean[l]) ? mean[l] : mean[l] + c[l];
  }
}

void sum_over_time_lanes(std::span<const SampleSpan> windows, double* out) {
  KahanSum sum[kLanes];
  for_each_lane_sample(windows, [&](size_t l, double v) { sum[l].add(v); });
  for (size_t l = 0; l < windows.size() && l < kLanes; ++l) out[l] = windows[l].empty() ? kNaN : sum[l].value();
}

double min_over_time(SampleSpan s) {
  if (s.empty()) return kNaN;
  double min = s.front().v;
  for (const auto& p : s) {
    if (p.v < min || std::isnan(min)) min = p.v;
  }
  return min;
}

double max_over_time(SampleSpan s) {
  if (s.empty()) return kNaN;
  double max = s.front().v;
  for (const auto& p : s) {
    if (p.v > max || std::isnan(max)) max = p.v;
  }
  return max;
}

double count_over_time(SampleSpan s) {
  return static_cast<double>(s.size());
}

double last_over_time(SampleSpan s) {
  return s.empty() ? kNaN : s.back().v;
}

double present_over_time(SampleSpan s) {
  return s.empty() ? kNaN : 1;
}

double stdvar_over_time(SampleSpan s) {
  if (s.empty()) return kNaN;
  double count = 0, mean = 0, c_mean = 0, aux = 0, c_aux = 0;
  for (const auto& p : s) {
    count++;
    const double delta = p.v - (mean + c_mean);
    kahan_sum_inc(delta / count, mean, c_mean);
    kahan_sum_inc(delta * (p.v - (mean + c_mean)), aux, c_aux);
  }
  return (aux + c_aux) / count;
}

double stddev_over_time(SampleSpan s) {
  return std::sqrt(stdvar_over_time(s));
}

double quantile_over_time(double q, SampleSpan s) {
  if (s.empty()) return kNaN;
  return quantile_of(q, values_of(s));
}

double mad_over_time(SampleSpan s) {
  if (s.empty()) return kNaN;
  std::vector<double> values = values_of(s);
  const double median = quantile_of(0.5, values);
  for (double& v : values) v = std::fabs(v - median);
  return quantile_of(0.5, std::move(values));
}

double changes(SampleSpan s) {
  if (s.empty()) return 0;
  int n = 0;
  double prev = s.front().v;
  for (size_t i = 1; i < s.size(); i++) {
    const double cur = s[i].v;
    if (cur != prev && !(std::isnan(cur) && std::isnan(prev))) n++;
    prev = cur;
  }
  return n;
}

double resets(SampleSpan s) {
  if (s.empty()) return 0;
  int n = 0;
  double prev = s.front().v;
  for (size_t i = 1; i < s.size(); i++) {
    if (s[i].v < prev) n++;
    prev = s[i].v;
  }
  return n;
}

std::optional<double> deriv(SampleSpan s) {
  if (s.size() < 2) return std::nullopt;
  // Intercept at the first sample's time keeps x small (prometheus#2674).
  return linear_regression(s, s.front().t_ms).slope;
}

std::optional<double> predict_linear(SampleSpan s, double duration_s, int64_t eval_t_ms) {
  if (s.size() < 2) return std::nullopt;
  const Regression r = linear_regression(s, eval_t_ms);
  return r.slope * duration_s + r.intercept;
}

Status check_smoothing_factors(double sf, double tf) {
  // Written as !(0 < x < 1) would also reject NaN; Prometheus's `x <= 0 ||
  // x >= 1` lets NaN through, and so do we.
  if (sf <= 0 || sf >= 1) {
    return Status::error("invalid smoothing factor. Expected: 0 < sf < 1, got: " + go_percent_f(sf));
  }
  if (tf <= 0 || tf >= 1) {
    return Status::error("invalid trend factor. Expected: 0 < tf < 1, got: " + go_percent_f(tf));
  }
  return Status::ok();
}

Expected<std::optional<double>> double_exponential_smoothing(SampleSpan s, double sf, double tf) {
  if (Status st = check_smoothing_factors(sf, tf); !st) return st;
  if (s.size() < 2) return std::optional<double>();
  double s0 = 0, s1 = s[0].v, b = s[1].v - s[0].v;
  for (size_t i = 1; i < s.size(); i++) {
    const double x = sf * s[i].v;  // The raw value, scaled by the smoothing factor.
    b = trend_value(i - 1, tf, s0, s1, b);
    const double y = (1 - sf) * (s1 + b);  // The last smoothed value plus the trend.
    s0 = s1;
    s1 = x + y;
  }
  return std::optional<double>(s1);
}

}  // namespace llmon::promql
