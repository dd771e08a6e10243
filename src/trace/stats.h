// Descriptive statistics of a sample, as pandas' Series.describe() gives them
// (HTA's summaries are describe() tables): count, mean, sample standard
// deviation (n - 1; 0 for one value), min, the 25/50/75 % quantiles with
// linear interpolation, max. Pure.
#pragma once

#include <cstdint>
#include <vector>

namespace llmon::trace {

struct Summary {
  uint64_t count = 0;
  double mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
};

// Sorts v.
Summary describe(std::vector<double> v);
// The same of values already in ascending order.
Summary describe_sorted(const std::vector<double>& sorted);

// The q-quantile (0..1) of sorted values, linear interpolation (numpy's default).
double quantile_sorted(const std::vector<double>& sorted, double q);

}  // namespace llmon::trace
