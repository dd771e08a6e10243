// Test helpers: the value functions of the function table (function_table.h)
// by name, as their entries apply them, for the tests of instant_functions.h
// and the differential test against promtool.
#pragma once

#include <optional>
#include <string_view>

#include "promql/function_table.h"

namespace llmon::promql::testutil {

namespace detail {

inline std::optional<double> apply_value_function(std::string_view name, bool step_time_dependent, double v) {
  const FunctionInfo* f = lookup_function(name);
  if (f == nullptr || f->impl.kind != FunctionImpl::Kind::kValue || f->impl.step_time_dependent != step_time_dependent)
    return std::nullopt;
  return f->impl.value(v);
}

}  // namespace detail

// The one-argument math function `name` (abs ... atanh, deg, rad, sgn) at
// `v`; nullopt for any other function.
inline std::optional<double> apply_simple_function(std::string_view name, double v) {
  return detail::apply_value_function(name, false, v);
}

// The date function `name` (day_of_month ... year) of `unix_seconds`;
// nullopt for any other function.
inline std::optional<double> date_function(std::string_view name, double unix_seconds) {
  return detail::apply_value_function(name, true, unix_seconds);
}

}  // namespace llmon::promql::testutil
