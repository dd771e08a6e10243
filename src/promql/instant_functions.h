// The element-wise PromQL functions on one float value: the math functions
// (abs ... atanh, deg, rad, sgn), round, clamp / clamp_min / clamp_max and the
// date functions, as Prometheus 2.42 computes them (promql/functions.go; the
// date functions through Go's time package, reproduced here). No labels, no
// vectors: the engine applies these per sample and drops the metric name.
// Stateless; safe from any thread.
//
// Precision: ln, log2 and log10 reproduce Go's math.Log / Log2 / Log10
// (fdlibm's algorithm, log(frac)/ln 2 + exp, log(x) * (1/ln 10)) and match
// Prometheus bit for bit. exp and the trigonometric and hyperbolic functions
// use the C library, which is correctly rounded where Go's own
// implementations are not: results can differ from Prometheus's in the last
// bits (a few ulps), and for asin/acos near ±1 by up to ~1e-10 relative
// (Go computes them through sqrt(1 - x*x)).
#pragma once

#include <optional>

#include "promql/function_table.h"

namespace llmon::promql {

// abs ceil floor exp ln log2 log10 sqrt sgn sin cos tan asin acos atan sinh
// cosh tanh asinh acosh atanh deg rad. nullopt for any other id.
// sgn: -1, 1, or the value itself for ±0 and NaN.
std::optional<double> apply_simple_function(FuncId id, double v);

// round(v, to_nearest): floor(v * inv + 0.5) / inv with inv = 1 / to_nearest
// (ties round up; to_nearest 0 gives NaN for finite v since inv is Inf).
double round_to(double v, double to_nearest);

// Go's math.Max(min, math.Min(max, v)) — NaN propagates except that a +Inf
// bound wins in Max and a -Inf bound in Min, as in Go. clamp_max is
// clamp(v, -Inf, max), clamp_min clamp(v, min, +Inf). The engine drops every
// series when min > max (Prometheus returns an empty vector).
double clamp(double v, double min, double max);

// day_of_month day_of_week day_of_year days_in_month hour minute month year of
// the UTC time `unix_seconds` (truncated toward zero to whole seconds), with
// Go's time semantics; nullopt for any other id. Prometheus does not reject
// NaN, ±Inf or out-of-range inputs: Go converts them to int64 as amd64 does
// (the minimum int64) and its calendar arithmetic wraps around; this is
// reproduced (year(NaN) is 292277026596, as Prometheus 2.42 on amd64 says).
std::optional<double> date_function(FuncId id, double unix_seconds);

}  // namespace llmon::promql
