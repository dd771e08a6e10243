// AST helpers (ast.h): operator names, value types, deep copy.
#include "promql/ast.h"

#include "promql/function_table.h"

namespace llmon::promql {

std::string_view documented_type(ValueType t) {
  switch (t) {
    case ValueType::kScalar:
      return "scalar";
    case ValueType::kVector:
      return "instant vector";
    case ValueType::kMatrix:
      return "range vector";
    case ValueType::kString:
      return "string";
    case ValueType::kNone:
      break;
  }
  return "none";
}

std::string_view api_type(ValueType t) {
  switch (t) {
    case ValueType::kScalar:
      return "scalar";
    case ValueType::kVector:
      return "vector";
    case ValueType::kMatrix:
      return "matrix";
    case ValueType::kString:
      return "string";
    case ValueType::kNone:
      break;
  }
  return "none";
}

std::string_view binop_text(BinOp op) {
  switch (op) {
    case BinOp::kAdd:
      return "+";
    case BinOp::kSub:
      return "-";
    case BinOp::kMul:
      return "*";
    case BinOp::kDiv:
      return "/";
    case BinOp::kMod:
      return "%";
    case BinOp::kPow:
      return "^";
    case BinOp::kAtan2:
      return "atan2";
    case BinOp::kEql:
      return "==";
    case BinOp::kNeq:
      return "!=";
    case BinOp::kGtr:
      return ">";
    case BinOp::kLss:
      return "<";
    case BinOp::kGte:
      return ">=";
    case BinOp::kLte:
      return "<=";
    case BinOp::kAnd:
      return "and";
    case BinOp::kOr:
      return "or";
    case BinOp::kUnless:
      return "unless";
  }
  return "?";
}

bool is_comparison(BinOp op) {
  switch (op) {
    case BinOp::kEql:
    case BinOp::kNeq:
    case BinOp::kGtr:
    case BinOp::kLss:
    case BinOp::kGte:
    case BinOp::kLte:
      return true;
    default:
      return false;
  }
}

bool is_set_operator(BinOp op) {
  return op == BinOp::kAnd || op == BinOp::kOr || op == BinOp::kUnless;
}

std::string_view aggop_text(AggOp op) {
  switch (op) {
    case AggOp::kSum:
      return "sum";
    case AggOp::kAvg:
      return "avg";
    case AggOp::kMin:
      return "min";
    case AggOp::kMax:
      return "max";
    case AggOp::kCount:
      return "count";
    case AggOp::kGroup:
      return "group";
    case AggOp::kStddev:
      return "stddev";
    case AggOp::kStdvar:
      return "stdvar";
    case AggOp::kTopk:
      return "topk";
    case AggOp::kBottomk:
      return "bottomk";
    case AggOp::kQuantile:
      return "quantile";
    case AggOp::kCountValues:
      return "count_values";
    case AggOp::kLimitk:
      return "limitk";
    case AggOp::kLimitRatio:
      return "limit_ratio";
  }
  return "?";
}

bool aggop_has_param(AggOp op) {
  switch (op) {
    case AggOp::kTopk:
    case AggOp::kBottomk:
    case AggOp::kQuantile:
    case AggOp::kCountValues:
    case AggOp::kLimitk:
    case AggOp::kLimitRatio:
      return true;
    default:
      return false;
  }
}

namespace {

struct TypeOf {
  ValueType operator()(const NumberLiteral&) const { return ValueType::kScalar; }
  ValueType operator()(const StringLiteral&) const { return ValueType::kString; }
  ValueType operator()(const VectorSelector&) const { return ValueType::kVector; }
  ValueType operator()(const MatrixSelector&) const { return ValueType::kMatrix; }
  ValueType operator()(const SubqueryExpr&) const { return ValueType::kMatrix; }
  ValueType operator()(const ParenExpr& p) const { return p.expr ? type_of(*p.expr) : ValueType::kNone; }
  ValueType operator()(const UnaryExpr& u) const { return u.expr ? type_of(*u.expr) : ValueType::kNone; }
  ValueType operator()(const BinaryExpr& b) const {
    if (!b.lhs || !b.rhs) return ValueType::kNone;
    if (type_of(*b.lhs) == ValueType::kScalar && type_of(*b.rhs) == ValueType::kScalar) return ValueType::kScalar;
    return ValueType::kVector;
  }
  ValueType operator()(const AggregateExpr&) const { return ValueType::kVector; }
  ValueType operator()(const Call& c) const { return c.func ? c.func->return_type : ValueType::kNone; }
};

ExprPtr clone_ptr(const ExprPtr& e) {
  return e ? clone(*e) : nullptr;
}

struct Clone {
  ExprNode operator()(const NumberLiteral& n) const { return n; }
  ExprNode operator()(const StringLiteral& s) const { return s; }
  ExprNode operator()(const VectorSelector& v) const { return v; }
  ExprNode operator()(const MatrixSelector& m) const { return MatrixSelector{clone_ptr(m.selector), m.range_ms}; }
  ExprNode operator()(const SubqueryExpr& s) const {
    return SubqueryExpr{clone_ptr(s.expr), s.range_ms, s.step_ms, s.offset_ms, s.at};
  }
  ExprNode operator()(const ParenExpr& p) const { return ParenExpr{clone_ptr(p.expr)}; }
  ExprNode operator()(const UnaryExpr& u) const { return UnaryExpr{u.negate, clone_ptr(u.expr)}; }
  ExprNode operator()(const BinaryExpr& b) const {
    return BinaryExpr{b.op, clone_ptr(b.lhs), clone_ptr(b.rhs), b.return_bool, b.matching};
  }
  ExprNode operator()(const AggregateExpr& a) const {
    return AggregateExpr{a.op, clone_ptr(a.expr), clone_ptr(a.param), a.grouping, a.without, a.has_grouping};
  }
  ExprNode operator()(const Call& c) const {
    Call out{c.func, {}};
    out.args.reserve(c.args.size());
    for (const auto& a : c.args) out.args.push_back(clone_ptr(a));
    return out;
  }
};

}  // namespace

ValueType type_of(const Expr& e) {
  return std::visit(TypeOf{}, e.node);
}

ExprPtr clone(const Expr& e) {
  return std::make_unique<Expr>(Expr{std::visit(Clone{}, e.node), e.pos});
}

}  // namespace llmon::promql
