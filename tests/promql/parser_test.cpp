// PromQL parser: AST shapes for every node kind, precedence and
// associativity, literals, comments, and parse errors (message and
// line:column) against Prometheus's (prometheus_parse_cases.h).
#include "promql/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "promql/ast_test_util.h"
#include "promql/function_table.h"
#include "promql/prometheus_parse_cases.h"

namespace llmon::promql {
namespace {

using model::Matcher;
using testutil::sexpr;

ExprPtr must_parse(std::string_view q) {
  ParseResult r = parse(q);
  EXPECT_TRUE(r.ok()) << q << ": " << r.error.to_string(q);
  return std::move(r.expr);
}

std::string parse_error(std::string_view q) {
  ParseResult r = parse(q);
  if (r.ok()) return "parsed OK as " + format(*r.expr);
  return r.error.to_string(q);
}

template <typename T>
const T& node(const Expr& e) {
  const T* n = std::get_if<T>(&e.node);
  EXPECT_NE(n, nullptr) << "node kind index " << e.node.index();
  static const T kEmpty{};
  return n ? *n : kEmpty;
}

TEST(PromqlParse, NumberLiterals) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* q;
    double v;
  } cases[] = {
      {"1", 1},
      {"+Inf", inf},
      {"-Inf", -inf},
      {"inf", inf},
      {".5", 0.5},
      {"5.", 5},
      {"123.4567", 123.4567},
      {"5e-3", 0.005},
      {"5e3", 5000},
      {"1E+3", 1000},
      {"0xc", 12},
      {"0X1F", 31},
      {"0755", 493},
      {"08", 8},
      {"+5.5e-3", 0.0055},
      {"-0755", -493},
      {"1.e1", 10},
      {".1e1", 1},
      {"000123", 83},
      {"1e-400", 0},
      {"9223372036854775807", 9223372036854775807.0},
      {"0x7fffffffffffffff", 9223372036854775807.0},
      {"4.9e-324", 4.9e-324},
      {"1.7976931348623157e308", 1.7976931348623157e308},
  };
  for (const auto& c : cases) {
    auto e = must_parse(c.q);
    ASSERT_TRUE(e) << c.q;
    EXPECT_EQ(node<NumberLiteral>(*e).value, c.v) << c.q;
    EXPECT_EQ(e->pos.start, 0) << c.q;
    EXPECT_EQ(e->pos.end, static_cast<int>(std::string_view(c.q).size())) << c.q;
  }
  auto nan = must_parse("NaN");
  EXPECT_TRUE(std::isnan(node<NumberLiteral>(*nan).value));
  auto neg_zero = must_parse("-0");
  EXPECT_TRUE(std::signbit(node<NumberLiteral>(*neg_zero).value));
}

TEST(PromqlParse, StringLiteralsUnescapeLikeGo) {
  struct Case {
    const char* q;
    std::string v;
  } cases[] = {
      {R"("plain")", "plain"},
      {R"('single')", "single"},
      {"`raw \\n \\x`", "raw \\n \\x"},
      {"`two\nlines`", "two\nlines"},
      {R"("\a\b\f\n\r\t\v\\\"")", "\a\b\f\n\r\t\v\\\""},
      {R"('\'')", "'"},
      {R"('a"b')", "a\"b"},
      {R"("a\u00e9\x41\101\U0001F600\n")",
       "a\xc3\xa9"
       "AA\xf0\x9f\x98\x80\n"},
      {R"("\x00\xff\377")", std::string("\0\xff\xff", 3)},
      {"\"caf\xc3\xa9\"", "caf\xc3\xa9"},
  };
  for (const auto& c : cases) {
    auto e = must_parse(c.q);
    ASSERT_TRUE(e) << c.q;
    EXPECT_EQ(node<StringLiteral>(*e).value, c.v) << c.q;
  }
}

TEST(PromqlParse, VectorSelectorPutsNameMatcherFirst) {
  const std::string_view q = R"(foo:bar{a="b", c!="d", e=~"f.*", g!~"h",})";
  auto e = must_parse(q);
  const auto& vs = node<VectorSelector>(*e);
  EXPECT_EQ(vs.name, "foo:bar");
  ASSERT_EQ(vs.matchers.size(), 5u);
  EXPECT_EQ(vs.matchers[0].name, "__name__");
  EXPECT_EQ(vs.matchers[0].value, "foo:bar");
  EXPECT_EQ(vs.matchers[0].type, Matcher::Type::kEq);
  EXPECT_EQ(vs.matchers[1].type, Matcher::Type::kEq);
  EXPECT_EQ(vs.matchers[2].type, Matcher::Type::kNeq);
  EXPECT_EQ(vs.matchers[3].type, Matcher::Type::kRe);
  EXPECT_EQ(vs.matchers[3].value, "f.*");
  EXPECT_EQ(vs.matchers[4].type, Matcher::Type::kNre);
  EXPECT_EQ(vs.matchers[4].name, "g");
  EXPECT_EQ(vs.offset_ms, 0);
  EXPECT_EQ(vs.at.kind, AtKind::kNone);
  EXPECT_EQ(e->pos.start, 0);
  EXPECT_EQ(e->pos.end, static_cast<int>(q.size()));

  auto bare = must_parse(R"({__name__=~"a.+", job="x"})");
  const auto& b = node<VectorSelector>(*bare);
  EXPECT_EQ(b.name, "");
  ASSERT_EQ(b.matchers.size(), 2u);
  EXPECT_EQ(b.matchers[0].name, "__name__");
  EXPECT_EQ(b.matchers[0].type, Matcher::Type::kRe);

  // Keywords are metric names where an expression is expected; the lexer
  // ignores keywords inside braces.
  for (const char* q : {"by", "without", "offset", "and", "or", "unless", "start", "end", "sum", "SUM", "topk"}) {
    auto k = must_parse(q);
    ASSERT_TRUE(k) << q;
    EXPECT_EQ(node<VectorSelector>(*k).name, q);
  }
  auto kw = must_parse(R"(foo{by="a", inf="b", sum="c"})");
  EXPECT_EQ(node<VectorSelector>(*kw).matchers[2].name, "inf");
}

TEST(PromqlParse, MatrixSelectorKeepsModifiersOnTheSelector) {
  auto e = must_parse("foo[5m] offset 1m @ 100.5");
  const auto& m = node<MatrixSelector>(*e);
  EXPECT_EQ(m.range_ms, 300000);
  const auto& vs = node<VectorSelector>(*m.selector);
  EXPECT_EQ(vs.offset_ms, 60000);
  EXPECT_EQ(vs.at.kind, AtKind::kTimestamp);
  EXPECT_EQ(vs.at.t_ms, 100500);
  EXPECT_EQ(e->pos.end, 25);

  auto neg = must_parse("foo[1h30m] @ start() offset -2d");
  const auto& vs2 = node<VectorSelector>(*node<MatrixSelector>(*neg).selector);
  EXPECT_EQ(node<MatrixSelector>(*neg).range_ms, 5400000);
  EXPECT_EQ(vs2.offset_ms, -2 * 86400000LL);
  EXPECT_EQ(vs2.at.kind, AtKind::kStart);
}

TEST(PromqlParse, OffsetAndAtInEitherOrder) {
  for (const char* q : {"foo offset 5m @ end()", "foo @ end() offset 5m"}) {
    auto e = must_parse(q);
    const auto& vs = node<VectorSelector>(*e);
    EXPECT_EQ(vs.offset_ms, 300000) << q;
    EXPECT_EQ(vs.at.kind, AtKind::kEnd) << q;
  }
  auto ts = must_parse("foo @ -1.0005");
  EXPECT_EQ(node<VectorSelector>(*ts).at.t_ms, -1001);  // math.Round(-1000.5)
  auto hex = must_parse("foo @ 0x10");
  EXPECT_EQ(node<VectorSelector>(*hex).at.t_ms, 16000);
}

TEST(PromqlParse, Subqueries) {
  auto e = must_parse("rate(foo[5m])[1h:5m] offset -30m @ 1600000000");
  const auto& s = node<SubqueryExpr>(*e);
  EXPECT_EQ(s.range_ms, 3600000);
  EXPECT_EQ(s.step_ms, 300000);
  EXPECT_EQ(s.offset_ms, -1800000);
  EXPECT_EQ(s.at.kind, AtKind::kTimestamp);
  EXPECT_EQ(s.at.t_ms, 1600000000000);
  EXPECT_EQ(node<Call>(*s.expr).func, lookup_function("rate"));

  auto d = must_parse("foo[10m:]");
  EXPECT_EQ(node<SubqueryExpr>(*d).step_ms, 0);
  auto p = must_parse("(a + b)[5m:1m]");
  EXPECT_NE(std::get_if<ParenExpr>(&node<SubqueryExpr>(*p).expr->node), nullptr);
}

TEST(PromqlParse, Aggregations) {
  auto before = must_parse("sum by (job, instance) (rate(foo[5m]))");
  auto after = must_parse("SUM(rate(foo[5m])) BY (job, instance)");
  for (const auto* e : {before.get(), after.get()}) {
    const auto& a = node<AggregateExpr>(*e);
    EXPECT_EQ(a.op, AggOp::kSum);
    EXPECT_EQ(a.grouping, (std::vector<std::string>{"job", "instance"}));
    EXPECT_FALSE(a.without);
    EXPECT_TRUE(a.has_grouping);
    EXPECT_EQ(a.param, nullptr);
  }
  auto topk = must_parse("topk without (a) (5, foo)");
  const auto& t = node<AggregateExpr>(*topk);
  EXPECT_EQ(t.op, AggOp::kTopk);
  EXPECT_TRUE(t.without);
  EXPECT_EQ(node<NumberLiteral>(*t.param).value, 5);
  EXPECT_EQ(node<VectorSelector>(*t.expr).name, "foo");

  auto cv = must_parse(R"(count_values("v", foo))");
  EXPECT_EQ(node<StringLiteral>(*node<AggregateExpr>(*cv).param).value, "v");

  auto none = must_parse("avg(foo)");
  EXPECT_FALSE(node<AggregateExpr>(*none).has_grouping);
  auto empty_by = must_parse("max by () (foo)");
  EXPECT_TRUE(node<AggregateExpr>(*empty_by).has_grouping);
  EXPECT_TRUE(node<AggregateExpr>(*empty_by).grouping.empty());

  // Keywords are valid labels in grouping lists, in the case written.
  auto kw = must_parse("sum by (sum, BY, on, bool, offset, start, end, atan2, group_left, and) (x)");
  EXPECT_EQ(node<AggregateExpr>(*kw).grouping[1], "BY");
  EXPECT_EQ(node<AggregateExpr>(*kw).grouping.size(), 10u);

  struct Op {
    const char* q;
    AggOp op;
  } ops[] = {{"avg(x)", AggOp::kAvg},
             {"min(x)", AggOp::kMin},
             {"max(x)", AggOp::kMax},
             {"count(x)", AggOp::kCount},
             {"group(x)", AggOp::kGroup},
             {"stddev(x)", AggOp::kStddev},
             {"stdvar(x)", AggOp::kStdvar},
             {"bottomk(1, x)", AggOp::kBottomk},
             {"quantile(0.5, x)", AggOp::kQuantile},
             {"limitk(2, x)", AggOp::kLimitk},
             {"limit_ratio(0.5, x)", AggOp::kLimitRatio}};
  for (const auto& o : ops) {
    auto e = must_parse(o.q);
    ASSERT_TRUE(e) << o.q;
    EXPECT_EQ(node<AggregateExpr>(*e).op, o.op) << o.q;
    EXPECT_EQ(node<AggregateExpr>(*e).param != nullptr, aggop_has_param(o.op)) << o.q;
  }
}

TEST(PromqlParse, BinaryVectorMatching) {
  auto e = must_parse("a * on (x, y) group_left (z) b");
  const auto& b = node<BinaryExpr>(*e);
  EXPECT_EQ(b.op, BinOp::kMul);
  ASSERT_TRUE(b.matching.has_value());
  EXPECT_TRUE(b.matching->on);
  EXPECT_EQ(b.matching->card, VectorMatching::Card::kManyToOne);
  EXPECT_EQ(b.matching->labels, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.matching->include, (std::vector<std::string>{"z"}));

  auto right = must_parse("a - ignoring (x) group_right b");
  const auto& r = node<BinaryExpr>(*right);
  EXPECT_FALSE(r.matching->on);
  EXPECT_EQ(r.matching->card, VectorMatching::Card::kOneToMany);
  EXPECT_TRUE(r.matching->include.empty());

  auto set = must_parse("a and on (x) b");
  EXPECT_EQ(node<BinaryExpr>(*set).matching->card, VectorMatching::Card::kManyToMany);
  auto plain = must_parse("a / b");
  EXPECT_EQ(node<BinaryExpr>(*plain).matching->card, VectorMatching::Card::kOneToOne);

  // Matching only exists between two instant vectors.
  for (const char* q : {"1 + b", "a + 1", "1 + on () b", "2 * 3", "1 > bool 2"}) {
    auto s = must_parse(q);
    ASSERT_TRUE(s) << q;
    EXPECT_FALSE(node<BinaryExpr>(*s).matching.has_value()) << q;
  }
  auto cmp = must_parse("a == bool b");
  EXPECT_TRUE(node<BinaryExpr>(*cmp).return_bool);
  EXPECT_EQ(node<BinaryExpr>(*cmp).op, BinOp::kEql);
}

TEST(PromqlParse, FunctionCalls) {
  auto e = must_parse("label_join(foo, \"dst\", \",\", \"a\", \"b\", \"c\")");
  const auto& c = node<Call>(*e);
  ASSERT_NE(c.func, nullptr);
  EXPECT_EQ(c.func, lookup_function("label_join"));
  EXPECT_EQ(c.args.size(), 6u);
  EXPECT_EQ(e->pos.start, 0);
  EXPECT_EQ(e->pos.end,
            static_cast<int>(std::string_view("label_join(foo, \"dst\", \",\", \"a\", \"b\", \"c\")").size()));

  for (const char* q :
       {"time()", "pi()", "day_of_month()", "day_of_month(foo)", "round(foo)", "round(foo, 10)",
        "sort_by_label(foo, \"a\", \"b\")", "histogram_quantile(0.9, foo)", "histogram_fraction(0, 0.5, foo)",
        "quantile_over_time(0.5, foo[5m])", "predict_linear(foo[1h], 3600)", "holt_winters(foo[1h], 0.5, 0.5)",
        "double_exponential_smoothing(foo[1h], 0.5, 0.5)", "absent_over_time(foo[5m])", "vector(scalar(foo))",
        "clamp(foo, 0, 1)", "histogram_count(foo)", "mad_over_time(foo[5m])"})
    EXPECT_TRUE(parse(q).ok()) << q << ": " << parse_error(q);
}

TEST(PromqlParse, UnaryExpressionsAndFolding) {
  EXPECT_EQ(node<NumberLiteral>(*must_parse("-1")).value, -1);
  EXPECT_EQ(node<NumberLiteral>(*must_parse("--1")).value, 1);
  EXPECT_EQ(node<NumberLiteral>(*must_parse("+1")).value, 1);
  auto neg = must_parse(" -foo");
  EXPECT_TRUE(node<UnaryExpr>(*neg).negate);
  EXPECT_EQ(neg->pos.start, 1);
  auto pos = must_parse("+foo");
  EXPECT_FALSE(node<UnaryExpr>(*pos).negate);
  auto folded = must_parse("  - 5");
  EXPECT_EQ(folded->pos.start, 2);  // the literal starts at the sign
  EXPECT_EQ(folded->pos.end, 5);
  auto paren = must_parse("-(1)");
  EXPECT_NE(std::get_if<ParenExpr>(&node<UnaryExpr>(*paren).expr->node), nullptr);
}

TEST(PromqlParse, PrecedenceAndAssociativity) {
  struct Case {
    const char* q;
    const char* tree;
  } cases[] = {
      {"1 + 2 * 3", "(+ 1 (* 2 3))"},
      {"1 * 2 + 3", "(+ (* 1 2) 3)"},
      {"1 - 2 - 3", "(- (- 1 2) 3)"},
      {"a / b * c % d", "(% (* (/ a b) c) d)"},
      {"a atan2 b * c", "(* (atan2 a b) c)"},
      {"2 ^ 3 ^ 2", "(^ 2 (^ 3 2))"},
      {"-2 ^ 2", "(neg (^ 2 2))"},
      {"-2 * 3", "(* -2 3)"},
      {"-a * b", "(* (neg a) b)"},
      {"-a ^ b", "(neg (^ a b))"},
      {"a ^ -b * c", "(* (^ a (neg b)) c)"},
      {"a + -b * c", "(+ a (* (neg b) c))"},
      {"2 ^ -1 ^ 2", "(^ 2 (neg (^ 1 2)))"},
      {"- -a", "(neg (neg a))"},
      {"+a", "(pos a)"},
      {"a == b + c", "(== a (+ b c))"},
      {"a + b == c", "(== (+ a b) c)"},
      {"a > b > c", "(> (> a b) c)"},
      {"a == bool b and c", "(and (== bool a b) c)"},
      {"a or b and c", "(or a (and b c))"},
      {"a and b or c", "(or (and a b) c)"},
      {"a unless b and c", "(and (unless a b) c)"},
      {"a or b unless c", "(or a (unless b c))"},
      {"a and b == c", "(and a (== b c))"},
      {"1 + 2 * 3 ^ 4 ^ 5 - 6", "(- (+ 1 (* 2 (^ 3 (^ 4 5)))) 6)"},
      {"(1 + 2) * 3", "(* (paren (+ 1 2)) 3)"},
      {"-a offset 5m", "(neg a offset 5m)"},
      {"a + b offset 5m", "(+ a b offset 5m)"},
      {"max_over_time(a[5m:]) + b", "(+ (max_over_time (subquery a 5m 0s)) b)"},
      {"sum(a) by (x) / on (x) b", "(/ (sum a) b)"},
      {"topk(3, a + b)", "(topk 3 (+ a b))"},
  };
  for (const auto& c : cases) {
    auto e = must_parse(c.q);
    ASSERT_TRUE(e) << c.q;
    EXPECT_EQ(sexpr(*e), c.tree) << c.q;
  }
}

TEST(PromqlParse, CommentsAndWhitespace) {
  auto e = must_parse("# leading comment\nfoo # trailing\n  + # middle\n\tbar # end");
  EXPECT_EQ(sexpr(*e), "(+ foo bar)");
  auto braces = must_parse("foo{a=\"b\", # comment inside braces\n c=\"d\"}");
  EXPECT_EQ(node<VectorSelector>(*braces).matchers.size(), 3u);
  auto crlf = must_parse("a\r\n+\r\nb");
  EXPECT_EQ(sexpr(*crlf), "(+ a b)");
}

TEST(PromqlParse, ErrorsMatchPrometheus) {
  for (const auto& c : testdata::kErrorCases) EXPECT_EQ(parse_error(c.query), c.expected) << "query: " << c.query;
}

TEST(PromqlParse, ErrorsBeyondPrometheus2) {
  // Facts from Prometheus 2.42 on raw bytes, and our checks of the
  // Prometheus 3 functions 2.42 lacks (same wording as its checkAST).
  struct Case {
    std::string q;
    const char* error;
  } cases[] = {
      {"\xff", "1:1: parse error: unexpected character: '\xef\xbf\xbd'"},
      {"\"\xff\"", "1:1: parse error: invalid UTF-8 rune"},
      {"`\xff`", "1:1: parse error: invalid UTF-8 rune"},
      {"\"\xef\xbf\xbd\"", "1:1: parse error: invalid UTF-8 rune"},
      {"foo{a=\"\xc3\"}", "1:7: parse error: invalid UTF-8 rune"},
      {"foo{\xff}", "1:5: parse error: unexpected character inside braces: '\xef\xbf\xbd'"},
      {"1 + \n\xff", "2:1: parse error: unexpected character: '\xef\xbf\xbd'"},
      {"foo \x01", "1:5: parse error: unexpected character: '\\x01'"},
      {"foo{a=\x01}", "1:7: parse error: unexpected character inside braces: '\\x01'"},
      {"foo !\x01", "1:5: parse error: unexpected character after '!': '\\x01'"},
      {"foo{a!", "1:6: parse error: unexpected character after '!' inside braces: '\xef\xbf\xbd'"},
      {std::string("foo\0bar", 7), "1:4: parse error: unexpected character: '\\x00'"},
      {"foo{a=~\"\\\\C\"}", "1:5: parse error: error parsing regexp: invalid escape sequence: `\\C`"},
      {"sort_by_label(foo, 1)",
       "1:20: parse error: expected type string in call to function \"sort_by_label\", got scalar"},
      {"sort_by_label()", "1:1: parse error: expected at least 1 argument(s) in call to \"sort_by_label\", got 0"},
      {"double_exponential_smoothing(foo[5m], 1)",
       "1:1: parse error: expected 3 argument(s) in call to \"double_exponential_smoothing\", got 2"},
      {"mad_over_time(foo)",
       "1:15: parse error: expected type range vector in call to function \"mad_over_time\", got instant vector"},
      {"limitk(foo, bar)", "1:8: parse error: expected type scalar in aggregation parameter, got instant vector"},
      {"limit_ratio(0.5)",
       "1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1"},
      {"histogram_avg(foo[5m])",
       "1:15: parse error: expected type instant vector in call to function \"histogram_avg\", got range vector"},
  };
  for (const auto& c : cases) EXPECT_EQ(parse_error(c.q), c.error) << "query: " << c.q;
}

TEST(PromqlParse, NestingIsBounded) {
  auto nested = [](int n, std::string_view open, std::string_view inner, std::string_view close) {
    std::string q;
    for (int i = 0; i < n; ++i) q += open;
    q += inner;
    for (int i = 0; i < n; ++i) q += close;
    return q;
  };
  auto too_deep = [](const std::string& q) {
    ParseResult r = parse(q);
    return !r.ok() && r.error.message == "expression nests too deeply";
  };
  EXPECT_TRUE(parse(nested(200, "(", "1", ")")).ok());
  EXPECT_TRUE(parse(nested(100, "abs(", "a", ")")).ok());
  EXPECT_TRUE(too_deep(nested(5000, "(", "1", ")")));
  EXPECT_TRUE(too_deep(nested(300, "sum(", "a", ")")));
  EXPECT_TRUE(too_deep(nested(300, "-", "a", "")));
  EXPECT_TRUE(too_deep(nested(300, "a ^ ", "a", "")));
  std::string chain = "a";
  for (int i = 0; i < 900; ++i) chain += " + a";
  ParseResult long_chain = parse(chain);
  ASSERT_TRUE(long_chain.ok());
  EXPECT_EQ(format(*long_chain.expr), chain);
  for (int i = 0; i < 200; ++i) chain += " or a";
  EXPECT_TRUE(too_deep(chain));
  std::string subqueries = "a";
  for (int i = 0; i < 1200; ++i) subqueries += "[5m:]";
  EXPECT_TRUE(too_deep(subqueries));
}

TEST(PromqlParse, ErrorToStringCountsLinesAndBytes) {
  ParseError e{0, "msg"};
  EXPECT_EQ(e.to_string(""), "1:1: parse error: msg");
  e.pos = 6;
  EXPECT_EQ(e.to_string("ab\ncd\nef"), "3:1: parse error: msg");
  e.pos = 5;
  EXPECT_EQ(e.to_string("ab\ncd\nef"), "2:3: parse error: msg");
  e.pos = 4;
  EXPECT_EQ(e.to_string("\xc3\xa9\xc3\xa9x"), "1:5: parse error: msg");  // columns count bytes
  e.pos = 99;
  EXPECT_EQ(e.to_string("abc"), "1:4: parse error: msg");
}

TEST(PromqlParse, RandomInputNeverCrashes) {
  std::mt19937 rng(7);
  const std::string alphabet = "abfoz_:019.eExX+-*/%^=!~<>(){}[],@\"'`\\# \n\tsumbyofsetwithoutbool";
  for (int i = 0; i < 3000; ++i) {
    std::string q;
    int n = static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k)
      q += (rng() % 10 == 0) ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    ParseResult r = parse(q);
    if (r.ok()) {
      ParseResult again = parse(format(*r.expr));
      ASSERT_TRUE(again.ok()) << q;
      EXPECT_TRUE(testutil::same_tree(*r.expr, *again.expr)) << q;
    } else {
      EXPECT_GE(r.error.pos, 0) << q;
      EXPECT_LE(r.error.pos, static_cast<int>(q.size())) << q;
      EXPECT_FALSE(r.error.message.empty()) << q;
    }
  }
}

TEST(PromqlParseSelector, AcceptsOnlyOneSelector) {
  auto ok = parse_selector(R"(up{job=~"node.*"})");
  ASSERT_TRUE(ok.ok());
  const auto& vs = node<VectorSelector>(*ok.expr);
  EXPECT_EQ(vs.name, "up");
  EXPECT_EQ(vs.matchers.size(), 2u);
  // As Prometheus's ParseMetricSelector: no type checks (the API rejects
  // selectors without a non-empty matcher with its own message).
  EXPECT_TRUE(parse_selector("{}").ok());
  EXPECT_TRUE(parse_selector("sum").ok());
  EXPECT_TRUE(parse_selector("foo:bar").ok());
  struct Case {
    const char* q;
    const char* error;
  } bad[] = {
      {"", "1:1: parse error: unexpected end of input"},
      {"foo bar", "1:5: parse error: unexpected identifier \"bar\""},
      {"foo[5m]", "1:4: parse error: unexpected \"[\""},
      {"rate(foo[5m])", "1:5: parse error: unexpected \"(\""},
      {"foo offset 5m", "1:5: parse error: unexpected <offset>"},
      {"on", "1:1: parse error: unexpected <on>"},
      {"1", "1:1: parse error: unexpected number \"1\""},
      {"(foo)", "1:1: parse error: unexpected \"(\""},
      {"foo + bar", "1:5: parse error: unexpected <op:+>"},
      {"{a=~\"(\"}", "1:2: parse error: error parsing regexp: missing closing ): `^(?:()$`"},
  };
  for (const auto& c : bad) {
    auto r = parse_selector(c.q);
    ASSERT_FALSE(r.ok()) << c.q;
    EXPECT_EQ(r.error.to_string(c.q), c.error) << c.q;
  }
}

TEST(PromqlAst, TypesAndNames) {
  struct Case {
    const char* q;
    ValueType t;
  } cases[] = {
      {"1", ValueType::kScalar},
      {"\"s\"", ValueType::kString},
      {"foo", ValueType::kVector},
      {"foo[5m]", ValueType::kMatrix},
      {"foo[5m:]", ValueType::kMatrix},
      {"(1)", ValueType::kScalar},
      {"-foo", ValueType::kVector},
      {"1 + 2", ValueType::kScalar},
      {"1 + foo", ValueType::kVector},
      {"sum(foo)", ValueType::kVector},
      {"time()", ValueType::kScalar},
      {"scalar(foo)", ValueType::kScalar},
      {"rate(foo[1m])", ValueType::kVector},
  };
  for (const auto& c : cases) {
    auto e = must_parse(c.q);
    ASSERT_TRUE(e) << c.q;
    EXPECT_EQ(type_of(*e), c.t) << c.q;
  }
  EXPECT_EQ(documented_type(ValueType::kMatrix), "range vector");
  EXPECT_EQ(documented_type(ValueType::kVector), "instant vector");
  EXPECT_EQ(documented_type(ValueType::kNone), "none");
  EXPECT_EQ(api_type(ValueType::kMatrix), "matrix");
  EXPECT_EQ(api_type(ValueType::kString), "string");
  EXPECT_EQ(binop_text(BinOp::kAtan2), "atan2");
  EXPECT_EQ(binop_text(BinOp::kLte), "<=");
  EXPECT_EQ(binop_text(BinOp::kUnless), "unless");
  EXPECT_TRUE(is_comparison(BinOp::kNeq));
  EXPECT_FALSE(is_comparison(BinOp::kAnd));
  EXPECT_TRUE(is_set_operator(BinOp::kOr));
  EXPECT_FALSE(is_set_operator(BinOp::kPow));
  EXPECT_EQ(aggop_text(AggOp::kCountValues), "count_values");
  EXPECT_EQ(aggop_text(AggOp::kLimitRatio), "limit_ratio");
  EXPECT_TRUE(aggop_has_param(AggOp::kQuantile));
  EXPECT_FALSE(aggop_has_param(AggOp::kGroup));
}

TEST(PromqlAst, CloneIsDeepAndEqual) {
  auto e = must_parse(
      "sum by (a) (rate(foo{x=\"y\"}[5m] offset 1m)) / on (a) group_left (b) -max_over_time(bar[1h:5m] @ 10)");
  ASSERT_TRUE(e);
  ExprPtr c = clone(*e);
  EXPECT_TRUE(testutil::same_tree(*e, *c));
  EXPECT_EQ(format(*e), format(*c));
  EXPECT_EQ(c->pos.start, e->pos.start);
  EXPECT_EQ(c->pos.end, e->pos.end);
  std::get<BinaryExpr>(c->node).matching->labels.push_back("zzz");
  EXPECT_FALSE(testutil::same_tree(*e, *c));
  EXPECT_EQ(node<BinaryExpr>(*e).matching->labels.size(), 1u);
}

TEST(PromqlFunctionTable, MatchesPrometheus) {
  const auto& all = all_functions();
  // One entry per function, each name once (sorted strictly).
  EXPECT_EQ(all.size(), 77u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].name, all[i].name);
  for (const auto& f : all) {
    EXPECT_EQ(lookup_function(f.name), &f) << f.name;
    EXPECT_EQ(f.histogram_only, f.name == "histogram_count" || f.name == "histogram_sum" || f.name == "histogram_avg" ||
                                    f.name == "histogram_stddev" || f.name == "histogram_stdvar")
        << f.name;
  }
  EXPECT_EQ(lookup_function("nope"), nullptr);
  EXPECT_EQ(lookup_function("Rate"), nullptr);  // function names are case-sensitive
  EXPECT_EQ(lookup_function("sum"), nullptr);   // aggregations are not functions

  const auto* round = lookup_function("round");
  EXPECT_EQ(round->arg_types, (std::vector<ValueType>{ValueType::kVector, ValueType::kScalar}));
  EXPECT_EQ(round->variadic, 1);
  EXPECT_EQ(lookup_function("label_join")->variadic, -1);
  EXPECT_EQ(lookup_function("label_join")->arg_types.size(), 4u);
  EXPECT_EQ(lookup_function("sort_by_label")->variadic, -1);
  EXPECT_EQ(lookup_function("time")->arg_types.size(), 0u);
  EXPECT_EQ(lookup_function("time")->return_type, ValueType::kScalar);
  EXPECT_EQ(lookup_function("pi")->return_type, ValueType::kScalar);
  EXPECT_EQ(lookup_function("scalar")->return_type, ValueType::kScalar);
  EXPECT_EQ(lookup_function("vector")->arg_types, (std::vector<ValueType>{ValueType::kScalar}));
  EXPECT_EQ(lookup_function("year")->variadic, 1);
  EXPECT_EQ(lookup_function("histogram_fraction")->arg_types,
            (std::vector<ValueType>{ValueType::kScalar, ValueType::kScalar, ValueType::kVector}));
  EXPECT_EQ(lookup_function("quantile_over_time")->arg_types,
            (std::vector<ValueType>{ValueType::kScalar, ValueType::kMatrix}));
  EXPECT_EQ(lookup_function("holt_winters")->arg_types, lookup_function("double_exponential_smoothing")->arg_types);
  EXPECT_EQ(lookup_function("label_replace")->arg_types.size(), 5u);
  EXPECT_EQ(lookup_function("absent_over_time")->arg_types, (std::vector<ValueType>{ValueType::kMatrix}));
}

TEST(PromqlFunctionTable, AtModifierUnsafeFunctions) {
  // Prometheus's AtModifierUnsafeFunctions (promql/parser/functions.go), the
  // entries marked step_time_dependent.
  std::vector<std::string_view> unsafe;
  for (const auto& f : all_functions())
    if (f.impl.step_time_dependent) unsafe.push_back(f.name);
  EXPECT_EQ(unsafe,
            (std::vector<std::string_view>{"day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour",
                                           "minute", "month", "predict_linear", "time", "timestamp", "year"}));
}

}  // namespace
}  // namespace llmon::promql
