// See aggregate_math.h. Semantics: Prometheus 2.42 promql/functions.go
// (kahanSumInc), promql/quantile.go (quantile), promql/engine.go (avg,
// stddev, stdvar in aggregation()).
#include "promql/aggregate_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace llmon::promql {

double KahanSum::value() const {
  return std::isinf(sum) ? sum : sum + c;
}

double quantile_of(double q, std::vector<double> values) {
  if (values.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  // Prometheus's vectorByValueHeap order: NaN sorts before every number.
  std::sort(values.begin(), values.end(), [](double a, double b) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
    return a < b;
  });
  const double n = static_cast<double>(values.size());
  const double rank = q * (n - 1);
  const double lower = std::max(0.0, std::floor(rank));
  const double upper = std::min(n - 1, lower + 1);
  const double weight = rank - std::floor(rank);
  return values[static_cast<size_t>(lower)] * (1 - weight) + values[static_cast<size_t>(upper)] * weight;
}

void MeanAccumulator::add(double v) {
  count++;
  if (count == 1) {
    mean = v;
    return;
  }
  if (std::isinf(mean)) {
    // Inf - Inf would turn the mean into NaN although it is already right.
    if (std::isinf(v) && (mean > 0) == (v > 0)) return;
    if (!std::isinf(v) && !std::isnan(v)) return;
  }
  mean += v / count - mean / count;
}

double MeanAccumulator::value() const {
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : mean;
}

void WelfordAccumulator::add(double v) {
  count++;
  if (count == 1) {
    mean = v;
    m2 = 0;
    return;
  }
  const double delta = v - mean;
  mean += delta / count;
  m2 += delta * (v - mean);
}

double WelfordAccumulator::variance() const {
  return count == 0 ? std::numeric_limits<double>::quiet_NaN() : m2 / count;
}

double WelfordAccumulator::stddev() const {
  return std::sqrt(variance());
}

}  // namespace llmon::promql
