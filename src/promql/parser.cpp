// PromQL parser (parser.h): recursive descent with precedence climbing over
// the tokens of lexer.h, reproducing Prometheus's yacc grammar
// (promql/parser/generated_parser.y) and its error messages:
//   * binary precedence, lowest first: or; and unless; comparisons; + -;
//     * / % atan2; ^ (right-associative); unary +/- binds like * (its operand
//     takes only ^), so -2^2 is -(2^2); [range], offset and @ bind tightest;
//   * unary minus on a number literal is folded into the literal;
//   * "unexpected X" errors name the grammar context Prometheus's error rules
//     give ("in aggregation", "in grouping opts", "in label matching", "in
//     offset", "in @", "in subquery selector"); lexer errors win as soon as
//     their token is read, as in Prometheus;
//   * type checks (parser_check.cpp) only after a syntactically valid parse.
// The first error ends the parse (Prometheus reports only its first error).
#include "promql/parser.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "go/strconv.h"
#include "model/metric.h"
#include "promql/function_table.h"
#include "promql/lexer.h"
#include "promql/parser_internal.h"

namespace llmon::promql {

namespace {

using internal::is_maybe_label_token;
using internal::is_metric_name_token;
using internal::ParseFailure;
using internal::precedence;
using internal::to_aggop;
using internal::to_binop;

// The operand of unary +/- extends over `^` only (precedence 6).
constexpr int kPowPrecedence = 6;
// Limits that keep a hostile query from exhausting the stack (Prometheus has
// none; real queries stay far below): kMaxNesting bounds the recursion of
// this parser (parentheses, calls, aggregations, unary operators, operands of
// tighter operators), kMaxDepth the depth of the tree the checker, printer
// and destructor recurse over (nesting plus operator chains and subqueries).
constexpr int kMaxNesting = 256;
constexpr int kMaxDepth = 1000;

ExprPtr make(ExprNode node, int start, int end) {
  return std::make_unique<Expr>(Expr{std::move(node), PosRange{start, end}});
}

class Parser {
 public:
  explicit Parser(std::string_view query) : query_(query), toks_(lex(query)) {}

  ExprPtr expression() {
    if (peek().kind == Tok::kEof) fail(0, "no expression found in input");
    ExprPtr e = expr(0);
    if (peek().kind != Tok::kEof) unexpected(peek());
    internal::check_ast(*e, query_);
    return e;
  }

  ExprPtr selector() {
    const Token& t = peek();
    ExprPtr e;
    if (t.kind == Tok::kLeftBrace) {
      e = vector_selector(nullptr);
    } else if (is_metric_name_token(t.kind)) {
      Token name = take();
      e = vector_selector(&name);
    } else {
      unexpected(t);
    }
    if (peek().kind != Tok::kEof) unexpected(peek());
    return e;
  }

 private:
  // The token `ahead` positions on; reading a lexer error fails the parse
  // (Prometheus reports a lexer error when its parser reads the token).
  const Token& peek(size_t ahead = 0) {
    size_t i = std::min(i_ + ahead, toks_.size() - 1);
    for (size_t k = i_; k <= i; ++k)
      if (toks_[k].kind == Tok::kError) throw ParseFailure{toks_[k].pos, toks_[k].error};
    return toks_[i];
  }
  Token take() {
    Token t = peek();
    if (i_ + 1 < toks_.size()) ++i_;
    last_end_ = t.end();
    return t;
  }
  [[noreturn]] static void fail(int pos, std::string message) { throw ParseFailure{pos, std::move(message)}; }
  // "unexpected <token>[ in <context>][, expected <what>]". Without an
  // explicit context, errors inside an aggregation get "in aggregation" (the
  // innermost yacc error rule on the stack).
  [[noreturn]] void unexpected(const Token& t, std::string_view context = {}, std::string_view expected = {}) {
    std::string msg = "unexpected " + describe(t);
    if (context.empty() && agg_depth_ > 0) context = "aggregation";
    if (!context.empty()) msg += " in " + std::string(context);
    if (!expected.empty()) msg += ", expected " + std::string(expected);
    fail(t.pos, std::move(msg));
  }

  ExprPtr expr(int min_prec);
  ExprPtr unary();
  ExprPtr primary();
  ExprPtr postfix(ExprPtr e);
  ExprPtr vector_selector(const Token* name);
  void label_matchers(std::vector<model::Matcher>& out);
  ExprPtr function_call();
  ExprPtr aggregate();
  std::vector<ExprPtr> call_args();
  std::vector<std::string> grouping_labels();
  ExprPtr range_or_subquery(ExprPtr e);
  void offset(Expr& e);
  void at(Expr& e);
  int64_t duration(const Token& t);
  double number(const Token& t);

  std::string_view query_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  int last_end_ = 0;   // end offset of the last token taken
  int agg_depth_ = 0;  // aggregations being parsed (for "in aggregation")
  int nesting_ = 0;    // expr() frames active, bounded by kMaxNesting
  int depth_ = 0;      // depth of the tree being built, bounded by kMaxDepth

  // Restores the counters when an expr() frame ends.
  struct DepthScope {
    Parser& p;
    int nesting, depth;
    ~DepthScope() {
      p.nesting_ = nesting;
      p.depth_ = depth;
    }
  };
  void deeper() {
    if (++depth_ > kMaxDepth) fail(peek().pos, "expression nests too deeply");
  }
};

ExprPtr Parser::expr(int min_prec) {
  DepthScope scope{*this, nesting_, depth_};
  if (++nesting_ > kMaxNesting) fail(peek().pos, "expression nests too deeply");
  deeper();
  ExprPtr lhs = unary();
  for (;;) {
    int prec = precedence(peek().kind);
    if (prec < 0 || prec < min_prec) return lhs;
    deeper();
    Token op = take();
    BinaryExpr b;
    b.op = to_binop(op.kind);
    VectorMatching vm;
    if (peek().kind == Tok::kBool) {
      take();
      b.return_bool = true;
    }
    if (peek().kind == Tok::kOn || peek().kind == Tok::kIgnoring) {
      vm.on = take().kind == Tok::kOn;
      vm.labels = grouping_labels();
      if (peek().kind == Tok::kGroupLeft || peek().kind == Tok::kGroupRight) {
        vm.card = take().kind == Tok::kGroupLeft ? VectorMatching::Card::kManyToOne : VectorMatching::Card::kOneToMany;
        if (peek().kind == Tok::kLeftParen) vm.include = grouping_labels();
      }
    }
    b.matching = std::move(vm);  // check_ast normalises it as Prometheus does
    b.rhs = expr(op.kind == Tok::kPow ? prec : prec + 1);
    int start = lhs->pos.start, end = b.rhs->pos.end;
    b.lhs = std::move(lhs);
    lhs = make(std::move(b), start, end);
  }
}

ExprPtr Parser::unary() {
  Tok k = peek().kind;
  if (k != Tok::kAdd && k != Tok::kSub) return postfix(primary());
  Token op = take();
  ExprPtr operand = expr(kPowPrecedence);
  if (auto* n = std::get_if<NumberLiteral>(&operand->node)) {
    if (op.kind == Tok::kSub) n->value = -n->value;
    operand->pos.start = op.pos;
    return operand;
  }
  int end = operand->pos.end;
  return make(UnaryExpr{op.kind == Tok::kSub, std::move(operand)}, op.pos, end);
}

ExprPtr Parser::primary() {
  const Token& t = peek();
  switch (t.kind) {
    case Tok::kNumber: {
      Token n = take();
      return make(NumberLiteral{number(n)}, n.pos, n.end());
    }
    case Tok::kString: {
      Token s = take();
      auto v = go::unquote_prometheus(s.text);
      if (!v) fail(s.pos, "error unquoting string " + go::quote(s.text) + ": " + v.error());
      return make(StringLiteral{std::move(*v)}, s.pos, s.end());
    }
    case Tok::kLeftParen: {
      Token l = take();
      ExprPtr inner = expr(0);
      if (peek().kind != Tok::kRightParen) unexpected(peek());
      Token r = take();
      return make(ParenExpr{std::move(inner)}, l.pos, r.end());
    }
    case Tok::kLeftBrace:
      return vector_selector(nullptr);
    case Tok::kIdentifier:
      if (peek(1).kind == Tok::kLeftParen) return function_call();
      break;
    default:
      if (is_aggregator(t.kind)) {
        Tok next = peek(1).kind;
        if (next == Tok::kLeftParen || next == Tok::kBy || next == Tok::kWithout) return aggregate();
      }
      break;
  }
  if (!is_metric_name_token(t.kind)) unexpected(t);
  Token name = take();
  return vector_selector(&name);
}

ExprPtr Parser::postfix(ExprPtr e) {
  for (;;) {
    switch (peek().kind) {
      case Tok::kLeftBracket:
        deeper();
        e = range_or_subquery(std::move(e));
        break;
      case Tok::kOffset:
        offset(*e);
        break;
      case Tok::kAt:
        at(*e);
        break;
      default:
        return e;
    }
  }
}

ExprPtr Parser::vector_selector(const Token* name) {
  VectorSelector vs;
  int start = name ? name->pos : peek().pos;
  if (name) {
    vs.name = std::string(name->text);
    vs.matchers.push_back({model::Matcher::Type::kEq, "__name__", vs.name});
  }
  if (peek().kind == Tok::kLeftBrace) label_matchers(vs.matchers);
  return make(std::move(vs), start, last_end_);
}

void Parser::label_matchers(std::vector<model::Matcher>& out) {
  take();  // '{'
  if (peek().kind == Tok::kRightBrace) {
    take();
    return;
  }
  for (;;) {
    const Token& label = peek();
    if (label.kind != Tok::kIdentifier) unexpected(label, "label matching", "identifier or \"}\"");
    Token name = take();
    model::Matcher m;
    m.name = std::string(name.text);
    switch (peek().kind) {
      case Tok::kAssign:
        m.type = model::Matcher::Type::kEq;
        break;
      case Tok::kNeq:
        m.type = model::Matcher::Type::kNeq;
        break;
      case Tok::kEqlRegex:
        m.type = model::Matcher::Type::kRe;
        break;
      case Tok::kNeqRegex:
        m.type = model::Matcher::Type::kNre;
        break;
      default:
        unexpected(peek(), "label matching", "label matching operator");
    }
    take();
    if (peek().kind != Tok::kString) unexpected(peek(), "label matching", "string");
    Token value = take();
    auto v = go::unquote_prometheus(value.text);
    if (!v) fail(value.pos, "error unquoting string " + go::quote(value.text) + ": " + v.error());
    m.value = std::move(*v);
    if (m.type == model::Matcher::Type::kRe || m.type == model::Matcher::Type::kNre) {
      std::string err = internal::regex_error(m.value);
      if (!err.empty()) fail(name.pos, std::move(err));
    }
    out.push_back(std::move(m));
    const Token& sep = peek();
    if (sep.kind == Tok::kRightBrace) {
      take();
      return;
    }
    if (sep.kind != Tok::kComma) unexpected(sep, "label matching", "\",\" or \"}\"");
    take();
    if (peek().kind == Tok::kRightBrace) {
      take();
      return;
    }
  }
}

ExprPtr Parser::function_call() {
  Token name = take();
  take();  // '('
  std::vector<ExprPtr> args = call_args();
  const FunctionInfo* f = lookup_function(name.text);
  if (!f) fail(name.pos, "unknown function with name " + go::quote(name.text));
  return make(Call{f, std::move(args)}, name.pos, last_end_);
}

// The arguments after '(' up to and including ')'.
std::vector<ExprPtr> Parser::call_args() {
  std::vector<ExprPtr> args;
  if (peek().kind == Tok::kRightParen) {
    take();
    return args;
  }
  for (;;) {
    args.push_back(expr(0));
    const Token& t = peek();
    if (t.kind == Tok::kRightParen) {
      take();
      return args;
    }
    if (t.kind != Tok::kComma) unexpected(t);
    Token comma = take();
    Tok next = peek().kind;
    if (next == Tok::kRightParen || next == Tok::kComma)
      fail(comma.pos, "trailing commas not allowed in function call args");
  }
}

ExprPtr Parser::aggregate() {
  Token op = take();
  AggregateExpr a;
  a.op = to_aggop(op.kind);
  ++agg_depth_;
  auto modifier = [&] {
    a.without = take().kind == Tok::kWithout;
    a.grouping = grouping_labels();
    a.has_grouping = true;
  };
  bool modifier_first = peek().kind == Tok::kBy || peek().kind == Tok::kWithout;
  if (modifier_first) modifier();
  if (peek().kind != Tok::kLeftParen) unexpected(peek());
  take();
  std::vector<ExprPtr> args = call_args();
  if (!modifier_first && (peek().kind == Tok::kBy || peek().kind == Tok::kWithout)) modifier();
  --agg_depth_;
  if (args.empty()) fail(op.pos, "no arguments for aggregate expression provided");
  size_t want = aggop_has_param(a.op) ? 2 : 1;
  if (args.size() != want)
    fail(op.pos, "wrong number of arguments for aggregate expression provided, expected " + std::to_string(want) +
                     ", got " + std::to_string(args.size()));
  if (want == 2) a.param = std::move(args[0]);
  a.expr = std::move(args[want - 1]);
  return make(std::move(a), op.pos, last_end_);
}

std::vector<std::string> Parser::grouping_labels() {
  if (peek().kind != Tok::kLeftParen) unexpected(peek(), "grouping opts", "\"(\"");
  take();
  std::vector<std::string> labels;
  if (peek().kind == Tok::kRightParen) {
    take();
    return labels;
  }
  for (;;) {
    const Token& t = peek();
    if (!is_maybe_label_token(t.kind) || !model::is_valid_label_name(t.text)) unexpected(t, "grouping opts", "label");
    labels.emplace_back(take().text);
    const Token& sep = peek();
    if (sep.kind == Tok::kRightParen) {
      take();
      return labels;
    }
    if (sep.kind != Tok::kComma) unexpected(sep, "grouping opts", "\",\" or \")\"");
    take();
    if (peek().kind == Tok::kRightParen) {
      take();
      return labels;
    }
  }
}

ExprPtr Parser::range_or_subquery(ExprPtr e) {
  Token open = take();  // '['
  if (peek().kind != Tok::kDuration) unexpected(peek(), "subquery selector", "duration");
  int64_t range = duration(take());
  int start = e->pos.start;
  if (peek().kind == Tok::kRightBracket) {
    Token close = take();
    const auto* vs = std::get_if<VectorSelector>(&e->node);
    if (!vs) fail(open.pos, "ranges only allowed for vector selectors");
    if (vs->offset_ms != 0) fail(open.pos, "no offset modifiers allowed before range");
    if (vs->at.kind != AtKind::kNone) fail(open.pos, "no @ modifiers allowed before range");
    return make(MatrixSelector{std::move(e), range}, start, close.end());
  }
  if (peek().kind != Tok::kColon) unexpected(peek(), "subquery or range", "\":\" or \"]\"");
  take();
  int64_t step = 0;
  if (peek().kind == Tok::kDuration) {
    step = duration(take());
    if (peek().kind != Tok::kRightBracket) unexpected(peek(), "subquery selector", "\"]\"");
  } else if (peek().kind != Tok::kRightBracket) {
    unexpected(peek(), "subquery selector", "duration or \"]\"");
  }
  Token close = take();
  SubqueryExpr s;
  s.expr = std::move(e);
  s.range_ms = range;
  s.step_ms = step;
  return make(std::move(s), start, close.end());
}

void Parser::offset(Expr& e) {
  take();  // 'offset'
  bool negative = false;
  if (peek().kind == Tok::kSub) {
    take();
    negative = true;
  }
  if (peek().kind != Tok::kDuration) unexpected(peek(), "offset", "duration");
  int64_t d = duration(take());
  int64_t* slot = nullptr;
  if (auto* vs = std::get_if<VectorSelector>(&e.node)) {
    slot = &vs->offset_ms;
  } else if (auto* m = std::get_if<MatrixSelector>(&e.node)) {
    slot = &std::get<VectorSelector>(m->selector->node).offset_ms;
  } else if (auto* s = std::get_if<SubqueryExpr>(&e.node)) {
    slot = &s->offset_ms;
  } else {
    fail(e.pos.start,
         "offset modifier must be preceded by an instant vector selector or range vector selector or a subquery");
  }
  if (*slot != 0) fail(e.pos.start, "offset may not be set multiple times");
  *slot = negative ? -d : d;
  e.pos.end = last_end_;
}

void Parser::at(Expr& e) {
  take();  // '@'
  AtModifier am;
  Tok k = peek().kind;
  if (k == Tok::kNumber || k == Tok::kAdd || k == Tok::kSub) {
    bool negative = false;
    if (k != Tok::kNumber) {
      negative = take().kind == Tok::kSub;
      if (peek().kind != Tok::kNumber) unexpected(peek(), "@", "timestamp");
    }
    double ts = number(take());
    if (negative) ts = -ts;
    if (std::isinf(ts) || std::isnan(ts) || ts >= 9223372036854775807.0 || ts <= -9223372036854775808.0)
      fail(e.pos.start, "timestamp out of bounds for @ modifier: " + go::format_float_fixed(ts, 6));
    // timestamp.FromFloatSeconds; an out-of-range conversion gives INT64_MIN as in Go on amd64.
    double ms = std::round(ts * 1000.0);
    am.kind = AtKind::kTimestamp;
    am.t_ms = (ms >= 9223372036854775807.0 || ms < -9223372036854775808.0) ? std::numeric_limits<int64_t>::min()
                                                                           : static_cast<int64_t>(ms);
  } else if (k == Tok::kStart || k == Tok::kEnd) {
    am.kind = take().kind == Tok::kStart ? AtKind::kStart : AtKind::kEnd;
    if (peek().kind != Tok::kLeftParen) unexpected(peek(), "@", "timestamp");
    take();
    if (peek().kind != Tok::kRightParen) unexpected(peek(), "@", "timestamp");
    take();
  } else {
    unexpected(peek(), "@", "timestamp");
  }
  AtModifier* slot = nullptr;
  if (auto* vs = std::get_if<VectorSelector>(&e.node)) {
    slot = &vs->at;
  } else if (auto* m = std::get_if<MatrixSelector>(&e.node)) {
    slot = &std::get<VectorSelector>(m->selector->node).at;
  } else if (auto* s = std::get_if<SubqueryExpr>(&e.node)) {
    slot = &s->at;
  } else {
    fail(e.pos.start,
         "@ modifier must be preceded by an instant vector selector or range vector selector or a subquery");
  }
  if (slot->kind != AtKind::kNone) fail(e.pos.start, "@ <timestamp> may not be set multiple times");
  *slot = am;
  e.pos.end = last_end_;
}

int64_t Parser::duration(const Token& t) {
  auto d = parse_duration_ms(t.text);
  if (!d) fail(t.pos, d.error());
  if (*d == 0) fail(t.pos, "duration must be greater than 0");
  return *d;
}

double Parser::number(const Token& t) {
  auto v = go::parse_number(t.text);
  if (!v) fail(t.pos, "error parsing number: " + v.error());
  return *v;
}

template <typename F>
ParseResult run(F&& f) {
  ParseResult r;
  try {
    r.expr = f();
  } catch (ParseFailure& e) {
    r.expr.reset();
    r.error = ParseError{e.pos, std::move(e.message)};
  }
  return r;
}

}  // namespace

std::string ParseError::to_string(std::string_view query) const {
  int p = std::clamp(pos, 0, static_cast<int>(query.size()));
  int line = 1, last_break = -1;
  for (int i = 0; i < p; ++i) {
    if (query[static_cast<size_t>(i)] == '\n') {
      last_break = i;
      ++line;
    }
  }
  return std::to_string(line) + ":" + std::to_string(p - last_break) + ": parse error: " + message;
}

ParseResult parse(std::string_view query) {
  return run([&] { return Parser(query).expression(); });
}

ParseResult parse_selector(std::string_view text) {
  return run([&] { return Parser(text).selector(); });
}

}  // namespace llmon::promql
