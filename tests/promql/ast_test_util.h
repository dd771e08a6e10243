// Test helpers for PromQL ASTs: a structural comparison (positions, matcher
// order and the printer-only has_grouping flag aside) and an S-expression rendering that
// makes the tree shape (precedence, associativity, folding) visible.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "promql/ast.h"
#include "promql/function_table.h"
#include "go/strconv.h"
#include "promql/parser.h"

namespace llmon::promql::testutil {

inline bool same_number(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

inline bool same_at(const AtModifier& a, const AtModifier& b) {
  return a.kind == b.kind && (a.kind != AtKind::kTimestamp || a.t_ms == b.t_ms);
}

inline bool same_tree(const Expr& a, const Expr& b);

inline bool same_ptr(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b) return !a && !b;
  return same_tree(*a, *b);
}

inline bool same_tree(const Expr& a, const Expr& b) {
  if (a.node.index() != b.node.index()) return false;
  if (auto* x = std::get_if<NumberLiteral>(&a.node))
    return same_number(x->value, std::get<NumberLiteral>(b.node).value);
  if (auto* x = std::get_if<StringLiteral>(&a.node)) return x->value == std::get<StringLiteral>(b.node).value;
  if (auto* x = std::get_if<VectorSelector>(&a.node)) {
    const auto& y = std::get<VectorSelector>(b.node);
    if (x->name != y.name || x->offset_ms != y.offset_ms || !same_at(x->at, y.at)) return false;
    // Matcher order carries no meaning (the printer sorts them).
    auto key = [](const model::Matcher& m) { return std::tuple(m.name, static_cast<int>(m.type), m.value); };
    std::vector<std::tuple<std::string, int, std::string>> mx, my;
    for (const auto& m : x->matchers) mx.push_back(key(m));
    for (const auto& m : y.matchers) my.push_back(key(m));
    std::sort(mx.begin(), mx.end());
    std::sort(my.begin(), my.end());
    return mx == my;
  }
  if (auto* x = std::get_if<MatrixSelector>(&a.node)) {
    const auto& y = std::get<MatrixSelector>(b.node);
    return x->range_ms == y.range_ms && same_ptr(x->selector, y.selector);
  }
  if (auto* x = std::get_if<SubqueryExpr>(&a.node)) {
    const auto& y = std::get<SubqueryExpr>(b.node);
    return x->range_ms == y.range_ms && x->step_ms == y.step_ms && x->offset_ms == y.offset_ms &&
           same_at(x->at, y.at) && same_ptr(x->expr, y.expr);
  }
  if (auto* x = std::get_if<ParenExpr>(&a.node)) return same_ptr(x->expr, std::get<ParenExpr>(b.node).expr);
  if (auto* x = std::get_if<UnaryExpr>(&a.node)) {
    const auto& y = std::get<UnaryExpr>(b.node);
    return x->negate == y.negate && same_ptr(x->expr, y.expr);
  }
  if (auto* x = std::get_if<BinaryExpr>(&a.node)) {
    const auto& y = std::get<BinaryExpr>(b.node);
    if (x->op != y.op || x->return_bool != y.return_bool || x->matching.has_value() != y.matching.has_value())
      return false;
    if (x->matching) {
      const auto &m = *x->matching, &n = *y.matching;
      if (m.card != n.card || m.on != n.on || m.labels != n.labels || m.include != n.include) return false;
    }
    return same_ptr(x->lhs, y.lhs) && same_ptr(x->rhs, y.rhs);
  }
  if (auto* x = std::get_if<AggregateExpr>(&a.node)) {
    const auto& y = std::get<AggregateExpr>(b.node);
    return x->op == y.op && x->grouping == y.grouping && x->without == y.without && same_ptr(x->expr, y.expr) &&
           same_ptr(x->param, y.param);
  }
  const auto& x = std::get<Call>(a.node);
  const auto& y = std::get<Call>(b.node);
  if (x.func != y.func || x.args.size() != y.args.size()) return false;
  for (size_t i = 0; i < x.args.size(); ++i)
    if (!same_ptr(x.args[i], y.args[i])) return false;
  return true;
}

// Selectors and literals print as PromQL; operators as (op lhs rhs).
inline std::string sexpr(const Expr& e) {
  if (auto* x = std::get_if<ParenExpr>(&e.node)) return "(paren " + sexpr(*x->expr) + ")";
  if (auto* x = std::get_if<UnaryExpr>(&e.node))
    return std::string(x->negate ? "(neg " : "(pos ") + sexpr(*x->expr) + ")";
  if (auto* x = std::get_if<BinaryExpr>(&e.node)) {
    return "(" + std::string(binop_text(x->op)) + (x->return_bool ? " bool" : "") + " " + sexpr(*x->lhs) + " " +
           sexpr(*x->rhs) + ")";
  }
  if (auto* x = std::get_if<SubqueryExpr>(&e.node)) {
    return "(subquery " + sexpr(*x->expr) + " " + format_duration_ms(x->range_ms) + " " +
           format_duration_ms(x->step_ms) + ")";
  }
  if (auto* x = std::get_if<AggregateExpr>(&e.node)) {
    std::string s = "(" + std::string(aggop_text(x->op));
    if (x->param) s += " " + sexpr(*x->param);
    return s + " " + sexpr(*x->expr) + ")";
  }
  if (auto* x = std::get_if<Call>(&e.node)) {
    std::string s = "(" + std::string(x->func->name);
    for (const auto& a : x->args) s += " " + sexpr(*a);
    return s + ")";
  }
  return format(e);
}

}  // namespace llmon::promql::testutil
