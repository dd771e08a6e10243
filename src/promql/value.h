// The values a PromQL evaluation produces (Prometheus's promql/value.go):
// scalar, string, instant vector, range vector (matrix). Plain data, no
// behaviour beyond comparisons; the engine and the HTTP API share them.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "model/labels.h"
#include "model/sample.h"

namespace llmon::promql {

using model::Labels;
using model::Sample;

struct Scalar {
  int64_t t_ms = 0;
  double v = 0;
};

struct String {
  int64_t t_ms = 0;
  std::string v;
};

// One element of an instant vector.
struct VectorSample {
  Labels labels;
  int64_t t_ms = 0;
  double v = 0;
};
using Vector = std::vector<VectorSample>;

// One series of a range vector / range-query result, samples in time order.
struct MatrixSeries {
  Labels labels;
  std::vector<Sample> samples;
};
using Matrix = std::vector<MatrixSeries>;

using Value = std::variant<Scalar, String, Vector, Matrix>;

}  // namespace llmon::promql
