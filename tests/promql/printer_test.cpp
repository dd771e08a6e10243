// PromQL printer: format() against Prometheus's String() output
// (prometheus_parse_cases.h), the parse/format fixed point over every
// query we have, printing of trees the parser cannot produce, and pretty().
#include <gtest/gtest.h>

#include <limits>

#include "promql/ast_test_util.h"
#include "promql/function_table.h"
#include "promql/parser.h"
#include "promql/prometheus_parse_cases.h"

namespace llmon::promql {
namespace {

std::string formatted(std::string_view q) {
  ParseResult r = parse(q);
  if (!r.ok()) return "ERROR " + r.error.to_string(q);
  return format(*r.expr);
}

ExprPtr leaf(ExprNode n) {
  return std::make_unique<Expr>(Expr{std::move(n), {}});
}

ExprPtr selector(std::string name, std::vector<model::Matcher> extra = {}) {
  VectorSelector vs;
  vs.name = name;
  if (!name.empty()) vs.matchers.push_back({model::Matcher::Type::kEq, "__name__", name});
  for (auto& m : extra) vs.matchers.push_back(std::move(m));
  return leaf(std::move(vs));
}

TEST(PromqlFormat, MatchesPrometheusString) {
  for (const auto& c : testdata::kFormatCases) EXPECT_EQ(formatted(c.query), c.expected) << "query: " << c.query;
}

TEST(PromqlFormat, CanonicalForms) {
  // Prometheus 3 functions (absent from the 2.42 oracle) and the cases where
  // we print as Prometheus 3 does.
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"sort_by_label(foo,'a',\"b\")", "sort_by_label(foo, \"a\", \"b\")"},
      {"sort_by_label_desc(foo, `a`)", "sort_by_label_desc(foo, \"a\")"},
      {"limitk(2,foo) by(x)", "limitk by (x) (2, foo)"},
      {"LIMIT_RATIO(0.5, foo)", "limit_ratio(0.5, foo)"},
      {"double_exponential_smoothing(foo[5m],0.1,0.2)", "double_exponential_smoothing(foo[5m], 0.1, 0.2)"},
      {"mad_over_time(foo[1h:1m])", "mad_over_time(foo[1h:1m])"},
      {"histogram_avg(x) + histogram_stddev(x) + histogram_stdvar(x)",
       "histogram_avg(x) + histogram_stddev(x) + histogram_stdvar(x)"},
      {"{__name__=\"\",a=\"x\"}", "{__name__=\"\",a=\"x\"}"},
      {"foo @ 1e17", "foo @ -9223372036854776.000"},  // Go's out-of-range int64 conversion (amd64)
  };
  for (const auto& c : cases) EXPECT_EQ(formatted(c.in), c.out) << c.in;
}

TEST(PromqlFormat, IsAFixedPoint) {
  std::vector<std::string> queries;
  for (const auto& c : testdata::kFormatCases) queries.emplace_back(c.query);
  for (const char* q : {"-2 ^ 2",
                        "2 ^ -1 ^ 2",
                        "a ^ -b * c",
                        "- -a",
                        "--1",
                        "-(-1)",
                        "-0",
                        "+Inf",
                        "-Inf",
                        "NaN",
                        "1e-7",
                        "123456789",
                        "0.000012345",
                        "1e21",
                        "4.9e-324",
                        "a - -1",
                        "a--b",
                        "a^-b",
                        "x{a=\"\\u00a0\\u200b\\ufeff\\x01\\xff\"}",
                        "\"\\U0001F600\\\\\\\"'\"",
                        "foo[1y2w3d4h5m6s7ms:13ms] @ 0.001 offset -1ms",
                        "sum without () (a)",
                        "sum by () (a)"})
    queries.emplace_back(q);
  int checked = 0;
  for (const auto& q : queries) {
    ParseResult first = parse(q);
    ASSERT_TRUE(first.ok()) << q;
    std::string once = format(*first.expr);
    ParseResult second = parse(once);
    ASSERT_TRUE(second.ok()) << q << " -> " << once << ": " << second.error.to_string(once);
    EXPECT_EQ(format(*second.expr), once) << q;
    EXPECT_TRUE(testutil::same_tree(*first.expr, *second.expr)) << q << " -> " << once;
    ++checked;
  }
  EXPECT_GT(checked, 500);
}

TEST(PromqlFormat, PrintsTreesTheParserCannotProduce) {
  // Label and matcher names that are not legacy label names are quoted (as
  // Prometheus 3 prints them).
  AggregateExpr a;
  a.op = AggOp::kSum;
  a.grouping = {"job", "service.name"};
  a.expr = selector("up", {{model::Matcher::Type::kNre, "k8s.pod", "x\"y"}});
  EXPECT_EQ(format(*leaf(std::move(a))), "sum by (job, \"service.name\") (up{\"k8s.pod\"!~\"x\\\"y\"})");

  VectorSelector vs;
  vs.name = "foo";
  vs.matchers = {{model::Matcher::Type::kEq, "__name__", "foo"},
                 {model::Matcher::Type::kEq, "b", "2"},
                 {model::Matcher::Type::kEq, "a", "1"}};
  vs.offset_ms = -90000;
  vs.at = {AtKind::kTimestamp, -1500};
  EXPECT_EQ(format(*leaf(vs)), "foo{a=\"1\",b=\"2\"} @ -1.500 offset -1m30s");

  BinaryExpr b;
  b.op = BinOp::kGte;
  b.return_bool = true;
  b.lhs = leaf(NumberLiteral{std::numeric_limits<double>::infinity()});
  b.rhs = leaf(NumberLiteral{-1.5e-7});
  EXPECT_EQ(format(*leaf(std::move(b))), "+Inf >= bool -1.5e-07");

  SubqueryExpr s;
  s.expr = selector("x");
  s.range_ms = 3600000;
  s.step_ms = 0;
  s.at = {AtKind::kEnd, 0};
  s.offset_ms = 1;
  EXPECT_EQ(format(*leaf(std::move(s))), "x[1h:] @ end() offset 1ms");

  Call c{lookup_function("label_join"), {}};
  c.args.push_back(selector("", {{model::Matcher::Type::kEq, "job", "a"}}));
  for (const char* arg : {"dst", ",", "a\nb"}) c.args.push_back(leaf(StringLiteral{arg}));
  EXPECT_EQ(format(*leaf(std::move(c))), "label_join({job=\"a\"}, \"dst\", \",\", \"a\\nb\")");
}

TEST(PromqlPretty, ShortQueriesStayOnOneLine) {
  for (const char* q : {"sum by (job) (rate(foo[5m]))", "a + on (b) group_left (c) d", "x"}) {
    ParseResult r = parse(q);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(pretty(*r.expr), format(*r.expr));
  }
}

TEST(PromqlPretty, SplitsLongQueriesLikePrometheus) {
  // Outputs of Prometheus 2.42's /api/v1/format_query.
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"histogram_quantile(0.99, sum by (le, job, instance, method, handler) "
       "(rate(http_request_duration_seconds_bucket{job=\"apiserver\", verb!=\"WATCH\"}[5m])))",
       "histogram_quantile(\n  0.99,\n  sum by (le, job, instance, method, handler) (\n"
       "    rate(http_request_duration_seconds_bucket{job=\"apiserver\",verb!=\"WATCH\"}[5m])\n  )\n)"},
      {"(sum(rate(http_requests_total{status=~\"5..\", job=\"very-long-job-name-for-testing\"}[5m])) / "
       "sum(rate(http_requests_total{job=\"very-long-job-name-for-testing\"}[5m]))) > bool 0.05",
       "  (\n      sum(rate(http_requests_total{job=\"very-long-job-name-for-testing\",status=~\"5..\"}[5m]))\n"
       "    /\n      sum(rate(http_requests_total{job=\"very-long-job-name-for-testing\"}[5m]))\n  )\n> bool\n  0.05"},
      {"-sum(rate(some_really_long_metric_name_for_testing_the_prettifier_total{label_one=\"value_one\", "
       "label_two=\"value_two\"}[5m]))",
       "-sum(\n  rate(\n    some_really_long_metric_name_for_testing_the_prettifier_total{label_one=\"value_one\","
       "label_two=\"value_two\"}[5m]\n  )\n)"},
      {"max_over_time(sum by (job) (rate(some_really_long_metric_name_for_testing_the_prettifier_total"
       "{label_one=\"value_one\"}[5m]))[1h:5m])",
       "max_over_time(\n  sum by (job) (\n    rate(some_really_long_metric_name_for_testing_the_prettifier_total"
       "{label_one=\"value_one\"}[5m])\n  )[1h:5m]\n)"},
  };
  for (const auto& c : cases) {
    ParseResult r = parse(c.in);
    ASSERT_TRUE(r.ok()) << c.in;
    std::string p = pretty(*r.expr);
    EXPECT_EQ(p, c.out) << c.in;
    ParseResult again = parse(p);
    ASSERT_TRUE(again.ok()) << p;
    EXPECT_TRUE(testutil::same_tree(*r.expr, *again.expr)) << p;
  }
}

}  // namespace
}  // namespace llmon::promql
