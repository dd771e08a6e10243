// Prometheus's atModifierTestCases rewrite (promql/promqltest/test.go), on
// our AST: every vector selector (also inside a matrix selector) and every
// subquery without a fixed `@ <time>` gets `@ at_ms` (an `@ start()` / `@
// end()` is replaced too: Prometheus sets the timestamp field, which wins
// when printed), except anything inside a subquery, which is left alone.
// calls_time_dependent() tells when the rewrite would change the result:
// a call of AtModifierUnsafeFunctions (the entries with
// FunctionImpl::step_time_dependent) outside subqueries. Test support.
#pragma once

#include <cstdint>
#include <type_traits>
#include <variant>

#include "promql/ast.h"
#include "promql/function_table.h"

namespace llmon::promqltest {

namespace detail {

template <typename Fn>
void for_children(promql::Expr& e, Fn&& fn) {
  std::visit(
      [&](auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, promql::MatrixSelector>) fn(*n.selector);
        if constexpr (std::is_same_v<T, promql::SubqueryExpr> || std::is_same_v<T, promql::ParenExpr> ||
                      std::is_same_v<T, promql::UnaryExpr>)
          fn(*n.expr);
        if constexpr (std::is_same_v<T, promql::BinaryExpr>) {
          fn(*n.lhs);
          fn(*n.rhs);
        }
        if constexpr (std::is_same_v<T, promql::AggregateExpr>) {
          if (n.param) fn(*n.param);
          fn(*n.expr);
        }
        if constexpr (std::is_same_v<T, promql::Call>)
          for (auto& a : n.args) fn(*a);
      },
      e.node);
}

}  // namespace detail

inline bool calls_time_dependent(promql::Expr& e) {
  if (std::holds_alternative<promql::SubqueryExpr>(e.node)) return false;
  if (auto* c = std::get_if<promql::Call>(&e.node); c && c->func->impl.step_time_dependent) return true;
  bool found = false;
  detail::for_children(e, [&](promql::Expr& child) { found = found || calls_time_dependent(child); });
  return found;
}

inline void pin_selectors(promql::Expr& e, int64_t at_ms) {
  const promql::AtModifier at{promql::AtKind::kTimestamp, at_ms};
  if (auto* vs = std::get_if<promql::VectorSelector>(&e.node)) {
    if (vs->at.kind != promql::AtKind::kTimestamp) vs->at = at;
    return;
  }
  if (auto* sq = std::get_if<promql::SubqueryExpr>(&e.node)) {
    if (sq->at.kind != promql::AtKind::kTimestamp) sq->at = at;
    return;  // nothing inside a subquery is changed
  }
  detail::for_children(e, [&](promql::Expr& child) { pin_selectors(child, at_ms); });
}

}  // namespace llmon::promqltest
