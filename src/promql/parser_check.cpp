// The parser's type checks (Prometheus's parser.checkAST), run once a query
// has parsed without syntax errors. Same checks, same order, same messages
// and positions as promql/parser/parse.go, so the first error we report is
// the one Prometheus reports.
#include "promql/function_table.h"
#include "go/strconv.h"
#include "promql/parser_internal.h"

namespace llmon::promql::internal {

namespace {

[[noreturn]] void fail(int pos, std::string message) {
  throw ParseFailure{pos, std::move(message)};
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

class Checker {
 public:
  explicit Checker(std::string_view query) : query_(query) {}

  ValueType check(Expr& e) {
    ValueType typ = type_of(e);
    std::visit([&](auto& n) { check_node(e, n); }, e.node);
    return typ;
  }

 private:
  void expect_type(Expr& e, ValueType want, std::string_view context) {
    ValueType t = check(e);
    if (t != want)
      fail(e.pos.start, "expected type " + std::string(documented_type(want)) + " in " + std::string(context) +
                            ", got " + std::string(documented_type(t)));
  }

  // Start of the operator of `b`: the first non-space after the left side.
  int op_pos(const BinaryExpr& b) const {
    size_t p = static_cast<size_t>(b.lhs->pos.end);
    while (p < query_.size() && is_space(query_[p])) ++p;
    return static_cast<int>(p);
  }

  void check_node(Expr&, NumberLiteral&) {}
  void check_node(Expr&, StringLiteral&) {}
  void check_node(Expr&, ParenExpr& p) { check(*p.expr); }
  void check_node(Expr&, MatrixSelector& m) { check(*m.selector); }

  void check_node(Expr& e, AggregateExpr& a) {
    expect_type(*a.expr, ValueType::kVector, "aggregation expression");
    switch (a.op) {
      case AggOp::kTopk:
      case AggOp::kBottomk:
      case AggOp::kQuantile:
      case AggOp::kLimitk:
      case AggOp::kLimitRatio:
        expect_type(*a.param, ValueType::kScalar, "aggregation parameter");
        break;
      case AggOp::kCountValues:
        expect_type(*a.param, ValueType::kString, "aggregation parameter");
        break;
      default:
        break;
    }
    (void)e;
  }

  void check_node(Expr& e, BinaryExpr& b) {
    ValueType lt = check(*b.lhs);
    ValueType rt = check(*b.rhs);
    if (b.return_bool && !is_comparison(b.op))
      fail(op_pos(b), "bool modifier can only be used on comparison operators");
    if (is_comparison(b.op) && !b.return_bool && lt == ValueType::kScalar && rt == ValueType::kScalar)
      fail(op_pos(b), "comparisons between scalars must use BOOL modifier");
    if (!b.matching) b.matching.emplace();
    VectorMatching& vm = *b.matching;
    if (is_set_operator(b.op) && vm.card == VectorMatching::Card::kOneToOne)
      vm.card = VectorMatching::Card::kManyToMany;
    if (vm.on)
      for (const auto& l1 : vm.labels)
        for (const auto& l2 : vm.include)
          if (l1 == l2) fail(op_pos(b), "label " + go::quote(l1) + " must not occur in ON and GROUP clause at once");
    if (lt != ValueType::kScalar && lt != ValueType::kVector)
      fail(b.lhs->pos.start, "binary expression must contain only scalar and instant vector types");
    if (rt != ValueType::kScalar && rt != ValueType::kVector)
      fail(b.rhs->pos.start, "binary expression must contain only scalar and instant vector types");
    std::string op_name = go::quote(binop_text(b.op));
    if (lt != ValueType::kVector || rt != ValueType::kVector) {
      if (!vm.labels.empty()) fail(e.pos.start, "vector matching only allowed between instant vectors");
      b.matching.reset();
    } else if (is_set_operator(b.op)) {
      if (vm.card == VectorMatching::Card::kOneToMany || vm.card == VectorMatching::Card::kManyToOne)
        fail(e.pos.start, "no grouping allowed for " + op_name + " operation");
      if (vm.card != VectorMatching::Card::kManyToMany) fail(e.pos.start, "set operations must always be many-to-many");
    }
    if ((lt == ValueType::kScalar || rt == ValueType::kScalar) && is_set_operator(b.op))
      fail(e.pos.start, "set operator " + op_name + " not allowed in binary scalar expression");
  }

  void check_node(Expr& e, Call& c) {
    const FunctionInfo& f = *c.func;
    size_t nargs = f.arg_types.size();
    std::string name = go::quote(f.name);
    std::string got = ", got " + std::to_string(c.args.size());
    if (f.variadic == 0) {
      if (nargs != c.args.size())
        fail(e.pos.start, "expected " + std::to_string(nargs) + " argument(s) in call to " + name + got);
    } else {
      size_t na = nargs - 1;
      if (na > c.args.size()) {
        fail(e.pos.start, "expected at least " + std::to_string(na) + " argument(s) in call to " + name + got);
      } else if (f.variadic > 0 && na + static_cast<size_t>(f.variadic) < c.args.size()) {
        fail(e.pos.start, "expected at most " + std::to_string(na + static_cast<size_t>(f.variadic)) +
                              " argument(s) in call to " + name + got);
      }
    }
    for (size_t i = 0; i < c.args.size(); ++i) {
      size_t k = i;
      if (k >= nargs) {
        if (f.variadic == 0) break;
        k = nargs - 1;
      }
      ValueType t = check(*c.args[i]);
      if (t != f.arg_types[k])
        fail(c.args[i]->pos.start, "expected type " + std::string(documented_type(f.arg_types[k])) +
                                       " in call to function " + name + ", got " + std::string(documented_type(t)));
    }
  }

  void check_node(Expr& e, UnaryExpr& u) {
    ValueType t = check(*u.expr);
    if (t != ValueType::kScalar && t != ValueType::kVector)
      fail(e.pos.start, "unary expression only allowed on expressions of type scalar or instant vector, got " +
                            go::quote(documented_type(t)));
  }

  void check_node(Expr& e, SubqueryExpr& s) {
    ValueType t = check(*s.expr);
    if (t != ValueType::kVector)
      fail(e.pos.start, "subquery is only allowed on instant vector, got " + std::string(api_type(t)) + " instead");
  }

  void check_node(Expr& e, VectorSelector& vs) {
    if (!vs.name.empty()) {
      // matchers[0] is the one synthesised from the name.
      for (size_t i = 1; i < vs.matchers.size(); ++i)
        if (vs.matchers[i].name == "__name__")
          fail(e.pos.start,
               "metric name must not be set twice: " + go::quote(vs.name) + " or " + go::quote(vs.matchers[i].value));
      return;
    }
    for (const auto& m : vs.matchers)
      if (!matches_empty(m)) return;
    fail(e.pos.start, "vector selector must contain at least one non-empty matcher");
  }

  std::string_view query_;
};

}  // namespace

void check_ast(Expr& e, std::string_view query) {
  Checker(query).check(e);
}

}  // namespace llmon::promql::internal
