// Numeric building blocks of PromQL aggregation: Kahan-Neumaier summation,
// the `quantile` interpolation, and the running mean / variance accumulators
// of the avg, stddev and stdvar aggregators, each bit-for-bit as Prometheus
// 2.42 computes them (promql/engine.go aggregation(), promql/quantile.go,
// promql/functions.go kahanSumInc). Pure functions and plain value types: no
// labels, no grouping (the engine groups and feeds these). Thread-safe as
// values are.
//
// Which Prometheus aggregator uses what (2.42, checked with promtool 2.42):
//   sum      plain `+=` (no Kahan: sum of {1e100, 1, -1e100} is 0); 3.x uses Kahan.
//   avg      MeanAccumulator (incremental mean, no Kahan); 3.x uses Kahan.
//   stddev / stdvar  WelfordAccumulator (no Kahan).
//   quantile quantile_of.
// sum_over_time / avg_over_time / stddev_over_time use Kahan (range_functions.h).
#pragma once

#include <cmath>
#include <vector>

namespace llmon::promql {

// One step of Prometheus's kahanSumInc (Neumaier's variant): adds `inc` to
// `sum`, accumulating the lost low-order bits in `c`. When the new sum is
// infinite the compensation is reset to 0, so an Inf sum stays Inf instead
// of turning NaN when c is added back. Inline: avg_over_time and
// sum_over_time call it once per sample of every window.
inline void kahan_sum_inc(double inc, double& sum, double& c) {
  const double t = sum + inc;
  if (std::isinf(t)) {
    c = 0;
  } else if (std::fabs(sum) >= std::fabs(inc)) {
    // Neumaier: the smaller operand lost the low bits.
    c += (sum - t) + inc;
  } else {
    c += (inc - t) + sum;
  }
  sum = t;
}

// Compensated sum. value() is sum + c, or sum alone when sum is ±Inf (as
// sum_over_time returns it).
struct KahanSum {
  double sum = 0;
  double c = 0;
  void add(double v) { kahan_sum_inc(v, sum, c); }
  double value() const;
};

// The `quantile` aggregation and quantile_over_time's core (Prometheus's
// quantile()): NaN for an empty input or a NaN q; -Inf for q < 0; +Inf for
// q > 1; otherwise linear interpolation between the two closest ranks of the
// values sorted ascending with NaNs first. Takes the values by value because
// it sorts them. Note Prometheus computes v[lo]*(1-w) + v[hi]*w even when
// w == 0, so a neighbouring ±Inf yields NaN; that is kept.
double quantile_of(double q, std::vector<double> values);

// The `avg` aggregator of Prometheus 2.42: the first value is the mean; each
// further value updates mean += v/n - mean/n (dividing both sides to avoid
// overflow), except that an infinite mean is kept when the new value is an
// Inf of the same sign or a finite number.
struct MeanAccumulator {
  double mean = 0;
  double count = 0;
  void add(double v);
  // NaN when nothing was added.
  double value() const;
};

// The stddev / stdvar aggregators of Prometheus 2.42 (Welford, no Kahan):
// the first value sets the mean and a zero sum of squares; each further one
// does delta = v - mean; mean += delta/n; m2 += delta*(v - mean).
struct WelfordAccumulator {
  double mean = 0;
  double m2 = 0;
  double count = 0;
  void add(double v);
  // Population variance m2/n (NaN when nothing was added).
  double variance() const;
  double stddev() const;
};

}  // namespace llmon::promql
