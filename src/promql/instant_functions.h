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

namespace llmon::promql {

// The math functions, each the PromQL function of its name. sgn: -1, 1, or
// the value itself for ±0 and NaN.
namespace math {
double abs(double v);
double ceil(double v);
double floor(double v);
double exp(double v);
double ln(double v);
double log2(double v);
double log10(double v);
double sqrt(double v);
double sgn(double v);
double sin(double v);
double cos(double v);
double tan(double v);
double asin(double v);
double acos(double v);
double atan(double v);
double sinh(double v);
double cosh(double v);
double tanh(double v);
double asinh(double v);
double acosh(double v);
double atanh(double v);
double deg(double v);
double rad(double v);
}  // namespace math

// round(v, to_nearest): floor(v * inv + 0.5) / inv with inv = 1 / to_nearest
// (ties round up; to_nearest 0 gives NaN for finite v since inv is Inf).
double round_to(double v, double to_nearest);

// Go's math.Max(min, math.Min(max, v)) — NaN propagates except that a +Inf
// bound wins in Max and a -Inf bound in Min, as in Go. clamp_max is
// clamp(v, -Inf, max), clamp_min clamp(v, min, +Inf). The engine drops every
// series when min > max (Prometheus returns an empty vector).
double clamp(double v, double min, double max);

// The date functions, each the PromQL function of its name, of the UTC time
// `unix_seconds` (truncated toward zero to whole seconds), with Go's time
// semantics. Prometheus does not reject NaN, ±Inf or out-of-range inputs: Go
// converts them to int64 as amd64 does (the minimum int64) and its calendar
// arithmetic wraps around; this is reproduced (year(NaN) is 292277026596, as
// Prometheus 2.42 on amd64 says).
namespace calendar {
double day_of_month(double unix_seconds);
double day_of_week(double unix_seconds);
double day_of_year(double unix_seconds);
double days_in_month(double unix_seconds);
double hour(double unix_seconds);
double minute(double unix_seconds);
double month(double unix_seconds);
double year(double unix_seconds);
}  // namespace calendar

}  // namespace llmon::promql
