// The PromQL functions over one range window of one series (rate, increase,
// delta, irate, idelta, the *_over_time family, changes, resets, deriv,
// predict_linear, holt_winters / double_exponential_smoothing), as pure
// functions on the window's samples. Semantics are Prometheus 2.42's
// promql/functions.go (our differential oracle, checked with its promtool);
// where 3.x differs the comment says how. Functions that exist only in 3.x
// (mad_over_time, the double_exponential_smoothing name) follow 3.x.
//
// Caller's contract: `s` holds the float samples of one series inside the
// window, sorted by time, timestamps unique, stale markers already removed.
// Window selection is the engine's: Prometheus 2.42 takes samples with
// range_start <= t <= range_end (both ends inclusive); 3.x excludes t ==
// range_start. Prometheus emits no sample at all for a series whose window is
// empty; the engine skips such series. Given an empty span the `double`
// functions below return NaN (count_over_time, changes, resets: 0) and the
// optional ones nullopt. std::nullopt means "no output sample".
//
// Stateless; safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "base/status.h"
#include "storage/storage.h"

namespace llmon::promql {

using SampleSpan = std::span<const model::Sample>;

// rate (counter, per second), increase (counter), delta (gauge): Prometheus's
// extrapolatedRate. Fewer than 2 samples: nullopt. Counter resets (a value
// below its predecessor) add the predecessor back. The result is
// extrapolated to each window boundary when the gap there is below 1.1 x
// the average sample interval, else by half an average interval. For
// counters the start is not extrapolated past the point where the counter
// would be zero. is_rate divides by (range_end - range_start) in seconds.
// The caller passes range_start = eval_t - range - offset and range_end =
// eval_t - offset.
// The result is value * factor with factor = (extrapolated interval /
// sampled interval) / range_s, computed in that order (bit-exact with 2.42).
// 2.42 vs 3.x: 2.42 limits the start gap to the zero point *before* testing
// it against the threshold, 3.x after substituting half an interval, so the
// two differ when the zero point lies between half an interval and the
// threshold and the window starts farther away than the threshold (samples
// at 30, 40, 50 s of 10, 20, 30 in a [0, 60 s] window: increase 40 in 2.42,
// 35 in 3.x).
std::optional<double> extrapolated_rate(SampleSpan s, int64_t range_start_ms, int64_t range_end_ms, bool is_counter,
                                        bool is_rate);
// Its second half, given `result`: last - first plus, for a counter, the
// value before each reset in the window (added in time order, after a 0.0
// when the first value is negative: exactly the sum extrapolated_rate forms).
// The engine passes sums it forms from a series' list of resets, so that the
// overlapping windows of a range query are not scanned sample by sample.
std::optional<double> extrapolate_rate_result(SampleSpan s, int64_t range_start_ms, int64_t range_end_ms,
                                              bool is_counter, bool is_rate, double result);

// irate (is_rate) / idelta: the last two samples. Fewer than 2 samples, or
// both at the same time: nullopt. irate treats a drop as a counter reset
// (the result is the last value) and divides by their distance in seconds.
std::optional<double> instant_rate(SampleSpan s, bool is_rate);

// Kahan-compensated sum (an infinite sum is returned as is).
double sum_over_time(SampleSpan s);
// 2.42: incremental mean with Kahan compensation and overflow protection
// (an infinite mean is kept when the next value is finite or an Inf of the
// same sign). 3.x sums directly with Kahan and switches to the incremental
// mean only on overflow (avg_over_time of {1e100, 1, -1e100} is 0 in 2.42,
// 1/3 in 3.x).
double avg_over_time(SampleSpan s);
// avg_over_time / sum_over_time of up to kLanes windows at once, each result
// bit for bit what the one-window function returns (NaN for an empty
// window). The windows' dependency chains (an average waits on a division
// per sample) run side by side in the CPU, which makes a range query's
// overlapping windows several times cheaper.
inline constexpr size_t kLanes = 4;
void avg_over_time_lanes(std::span<const SampleSpan> windows, double* out);
void sum_over_time_lanes(std::span<const SampleSpan> windows, double* out);
// NaN is replaced by any later number; NaN only when all values are NaN.
double min_over_time(SampleSpan s);
double max_over_time(SampleSpan s);
double count_over_time(SampleSpan s);
double last_over_time(SampleSpan s);
// 1 (the engine only calls it for non-empty windows).
double present_over_time(SampleSpan s);
// Welford with Kahan compensation of mean and sum of squares; population
// variance (divides by n).
double stdvar_over_time(SampleSpan s);
double stddev_over_time(SampleSpan s);
// quantile_of(q, values): NaN q -> NaN, q < 0 -> -Inf, q > 1 -> +Inf.
double quantile_over_time(double q, SampleSpan s);
// 3.x only: median absolute deviation from the median (both medians by
// quantile_of(0.5, ...)).
double mad_over_time(SampleSpan s);
// Number of value changes (NaN to NaN is no change, NaN to number is).
double changes(SampleSpan s);
// Number of decreases (comparisons with NaN are false).
double resets(SampleSpan s);

// Least-squares slope in units per second (Prometheus's linearRegression with
// x in seconds relative to the first sample, Kahan-compensated sums). Fewer
// than 2 samples: nullopt. All values equal: 0 (NaN if they are ±Inf).
std::optional<double> deriv(SampleSpan s);
// The regression line (x relative to eval_t_ms) evaluated duration_s seconds
// after eval_t_ms. Fewer than 2 samples: nullopt.
std::optional<double> predict_linear(SampleSpan s, double duration_s, int64_t eval_t_ms);

// Prometheus's checks of the smoothing and trend factors, with its messages
// ("invalid smoothing factor. Expected: 0 < sf < 1, got: 0.000000"; the
// number in Go's %f). Prometheus raises them for the first series it
// evaluates, before looking at its samples.
Status check_smoothing_factors(double sf, double tf);
// holt_winters (2.42) / double_exponential_smoothing (3.x): same algorithm.
// An error when check_smoothing_factors fails; nullopt when fewer than 2
// samples; else the last smoothed value.
Expected<std::optional<double>> double_exponential_smoothing(SampleSpan s, double sf, double tf);

}  // namespace llmon::promql
