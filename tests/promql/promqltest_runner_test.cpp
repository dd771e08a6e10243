// The promqltest support itself (tests/promql/promqltest/): the script parser
// on literal scripts (good and malformed), the result comparison, and the
// runner driven by a fake backend, so that a runner bug cannot hide engine
// bugs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "promql/parser.h"
#include "promql/promqltest/engine_backend.h"
#include "promql/promqltest/pinning.h"
#include "promql/promqltest/runner.h"
#include "promql/promqltest/script.h"
#include "support/test_paths.h"

namespace llmon::promqltest {
namespace {

using ::testing::StartsWith;

model::Labels L(std::vector<model::Label> pairs) {
  return *model::Labels::make(std::move(pairs));
}

Script parse_ok(std::string_view text) {
  auto s = parse_script(text, "t.test");
  EXPECT_TRUE(s) << s.error();
  return s ? *s : Script{};
}

std::string parse_error(std::string_view text) {
  auto s = parse_script(text, "t.test");
  return s ? "no error" : s.error();
}

TEST(PromqlTestScript, ParsesAllCommandKinds) {
  Script s = parse_ok(R"(# a comment
load 5m
  http_requests{job="api", group="a"} 0+10x3 _ stale
  up 1

clear
load 1m
    x 1

eval instant at 50m rate(http_requests[5m])
    {job="api"} 0.033
    {job="db"} 2

eval_ordered instant at 1h30m sort(x)
  x{a="1"} 1
  x{a="2"} 2

eval range from 0 to 10m step 5m sum(x)
  {} 1 _ 3

eval instant at 0s 1 + 1
  0x10

eval_fail instant at 1m foo + on() bar
  expected_fail_message many-to-many matching not allowed

eval instant at 1m foo
  expect fail regex: many.to.many
  expect warn msg: PromQL warning: something
  expect no_info

eval instant at 1m nothing
)");
  ASSERT_EQ(s.commands.size(), 10u);
  const auto& load = std::get<LoadCmd>(s.commands[0]);
  EXPECT_THAT(load.line, 2);
  EXPECT_EQ(load.step_ms, 300'000);
  ASSERT_EQ(load.series.size(), 2u);
  EXPECT_EQ(load.series[0].labels, L({{"__name__", "http_requests"}, {"job", "api"}, {"group", "a"}}));
  EXPECT_EQ(load.series[0].values.size(), 6u);
  EXPECT_TRUE(load.series[0].values[4].omitted);
  EXPECT_TRUE(model::is_stale(load.series[0].values[5].value));
  EXPECT_EQ(std::get<ClearCmd>(s.commands[1]).line, 6);

  const auto& e1 = std::get<EvalCmd>(s.commands[3]);
  EXPECT_EQ(e1.line, 10);
  EXPECT_EQ(e1.query, "rate(http_requests[5m])");
  EXPECT_FALSE(e1.range);
  EXPECT_EQ(e1.start_ms, 3'000'000);
  ASSERT_EQ(e1.series.size(), 2u);
  EXPECT_EQ(e1.series[1].pos, 2);
  EXPECT_EQ(e1.series[1].line, 12);
  EXPECT_FALSE(e1.ordered);

  const auto& e2 = std::get<EvalCmd>(s.commands[4]);
  EXPECT_TRUE(e2.ordered);
  EXPECT_EQ(e2.start_ms, 5'400'000);

  const auto& e3 = std::get<EvalCmd>(s.commands[5]);
  EXPECT_TRUE(e3.range);
  EXPECT_EQ(e3.end_ms, 600'000);
  EXPECT_EQ(e3.step_ms, 300'000);
  ASSERT_EQ(e3.series.size(), 1u);
  EXPECT_TRUE(e3.series[0].labels.empty());
  EXPECT_TRUE(e3.series[0].values[1].omitted);

  const auto& e4 = std::get<EvalCmd>(s.commands[6]);
  EXPECT_TRUE(e4.expect_scalar);
  EXPECT_EQ(e4.scalar, 16);  // test.go's parseNumber: ParseInt base 0
  EXPECT_EQ(e4.start_ms, 0);

  const auto& e5 = std::get<EvalCmd>(s.commands[7]);
  EXPECT_TRUE(e5.fail);
  EXPECT_EQ(e5.fail_message, "many-to-many matching not allowed");

  const auto& e6 = std::get<EvalCmd>(s.commands[8]);
  EXPECT_TRUE(e6.fail);
  EXPECT_EQ(e6.fail_regexp, "many.to.many");
  ASSERT_EQ(e6.expects.size(), 3u);
  EXPECT_EQ(e6.expects[1].kind, Expect::Kind::kWarn);
  EXPECT_EQ(e6.expects[1].msg, "PromQL warning: something");
  EXPECT_EQ(e6.expects[2].kind, Expect::Kind::kNoInfo);

  const auto& e7 = std::get<EvalCmd>(s.commands[9]);
  EXPECT_TRUE(e7.series.empty());
  EXPECT_FALSE(e7.expect_scalar);
}

TEST(PromqlTestScript, GoNumbers) {
  EXPECT_EQ(detail::parse_go_number("42"), 42);
  EXPECT_EQ(detail::parse_go_number("-0x1F"), -31);
  EXPECT_EQ(detail::parse_go_number("017"), 15);
  EXPECT_EQ(detail::parse_go_number("0o17"), 15);
  EXPECT_EQ(detail::parse_go_number("0b101"), 5);
  EXPECT_EQ(detail::parse_go_number("089"), 89);
  EXPECT_EQ(detail::parse_go_number("1.5e3"), 1500);
  EXPECT_EQ(detail::parse_go_number("+Inf"), HUGE_VAL);
  EXPECT_EQ(detail::parse_go_number("-infinity"), -HUGE_VAL);
  EXPECT_TRUE(std::isnan(*detail::parse_go_number("NaN")));
  EXPECT_FALSE(detail::parse_go_number("foo"));
  EXPECT_FALSE(detail::parse_go_number("{} 1"));
  EXPECT_FALSE(detail::parse_go_number("0x"));
  EXPECT_FALSE(detail::parse_go_number("1e400"));
  EXPECT_FALSE(detail::parse_go_number(""));
}

TEST(PromqlTestScript, ErrorsNameFileAndLine) {
  EXPECT_EQ(parse_error("load 5m\n  x{a=\"b} 1\n"), "t.test:2: column 5: unterminated quoted string");
  EXPECT_EQ(parse_error("\n\nfoo bar\n"), "t.test:3: invalid command \"foo bar\"");
  EXPECT_EQ(parse_error("load\n"), "t.test:1: invalid load command. (load <step:duration>)");
  EXPECT_THAT(parse_error("load 5q\n"), StartsWith("t.test:1: invalid step \"5q\": in"));
  EXPECT_THAT(parse_error("load_with_nhcb 5m\n"), "t.test:1: load_with_nhcb (native histograms) is not supported");
  EXPECT_EQ(parse_error("eval instant at 5m x\n  x 1 2\n"),
            "t.test:2: expecting multiple values in instant evaluation not allowed");
  EXPECT_EQ(parse_error("eval range from 10m to 5m step 1m x\n"),
            "t.test:1: invalid test definition, end timestamp (5m) is before start timestamp (10m)");
  EXPECT_THAT(parse_error("eval instant x\n"), StartsWith("t.test:1: invalid evaluation command. Mus"));
  EXPECT_THAT(parse_error("eval instant at 1m x\n  expect bogus\n"),
              StartsWith("t.test:2: invalid expect statement, mu"));
  EXPECT_THAT(parse_error("eval instant at 1m x\n  expect fail\n  expect fail\n"),
              "t.test:3: invalid expect lines, multiple expect fail lines are not allowed");
  EXPECT_EQ(parse_error("eval instant at 1m x\n  expect warn\n  expect no_warn\n"),
            "t.test:3: invalid expect lines, info/no_info or warn/no_warn used together");
  EXPECT_EQ(parse_error("eval instant at 1m x\n  x 1\n  x 2\n"),
            "t.test:3: series {__name__=\"x\"} expected twice (also line 2)");
  EXPECT_EQ(parse_error("load 1m\n  x 1\n  x 2\n"),
            "t.test:3: series {__name__=\"x\"} loaded twice in one block (also line 2)");
  EXPECT_EQ(parse_error("eval instant at 1m x\n  1\n  x 1\n"), "t.test:3: invalid command \"x 1\"");
  EXPECT_EQ(parse_error("eval instant at 1m x\n  expect string \"a\"\n"),
            "t.test:2: \"expect string \"a\"\" is not supported by this runner");
  // A comment ends a block; the next series line is then an invalid command.
  EXPECT_EQ(parse_error("load 1m\n  x 1\n# c\n  y 1\n"), "t.test:4: invalid command \"y 1\"");
}

TEST(PromqlTestCompare, AlmostEqualIsPrometheus) {
  EXPECT_TRUE(almost_equal(1, 1 + 1e-9));
  EXPECT_FALSE(almost_equal(1, 1.00001));
  EXPECT_TRUE(almost_equal(NAN, model::stale_nan()));
  EXPECT_FALSE(almost_equal(0, 1e-300));
  EXPECT_TRUE(almost_equal(HUGE_VAL, HUGE_VAL));
  EXPECT_FALSE(almost_equal(HUGE_VAL, -HUGE_VAL));
  EXPECT_FALSE(almost_equal(1, NAN));
}

EvalCmd eval_of(std::string_view text) {
  Script s = parse_ok(text);
  return std::get<EvalCmd>(s.commands.at(0));
}

promql::QueryResult vec(std::vector<promql::VectorSample> v) {
  promql::QueryResult r;
  r.type = promql::ValueType::kVector;
  r.value = std::move(v);
  return r;
}

TEST(PromqlTestCompare, Vectors) {
  EvalCmd e = eval_of("eval instant at 1m x\n  x{a=\"1\"} 1\n  x{a=\"2\"} NaN\n");
  auto a1 = L({{"__name__", "x"}, {"a", "1"}}), a2 = L({{"__name__", "x"}, {"a", "2"}});
  EXPECT_EQ(compare_result(e, vec({{a2, 0, NAN}, {a1, 0, 1.0000001}})), "");
  EXPECT_EQ(compare_result(e, vec({{a1, 0, 1.1}, {a2, 0, NAN}})),
            "expected 1 for {__name__=\"x\", a=\"1\"} but got 1.1");
  EXPECT_EQ(compare_result(e, vec({{a1, 0, 1}})), "expected metric {__name__=\"x\", a=\"2\"} with NaN not found");
  EXPECT_EQ(compare_result(e, vec({{a1, 0, 1}, {a2, 0, NAN}, {L({{"b", "1"}}), 0, 3}})),
            "unexpected metric {b=\"1\"} in result, has value 3");
  EXPECT_EQ(compare_result(e, vec({{a1, 0, 1}, {a1, 0, 1}})),
            "metric {__name__=\"x\", a=\"1\"} appears twice in the result");
  EXPECT_EQ(compare_result(e, vec({{a1, 0, 1}, {a2, 0, model::stale_nan()}})),
            "result contains a staleness marker for {__name__=\"x\", a=\"2\"}");
  promql::QueryResult scalar;
  scalar.value = promql::Scalar{0, 1};
  EXPECT_EQ(compare_result(e, scalar), "expected a vector or matrix, got scalar 1");

  EvalCmd ordered = eval_of("eval_ordered instant at 1m sort(x)\n  x{a=\"1\"} 1\n  x{a=\"2\"} 2\n");
  EXPECT_EQ(compare_result(ordered, vec({{a1, 0, 1}, {a2, 0, 2}})), "");
  EXPECT_EQ(compare_result(ordered, vec({{a2, 0, 2}, {a1, 0, 1}})),
            "expected metric {__name__=\"x\", a=\"2\"} at position 2 but was at 1");
  EvalCmd unordered = eval_of("eval instant at 1m x\n  x{a=\"1\"} 1\n  x{a=\"2\"} 2\n");
  EXPECT_EQ(compare_result(unordered, vec({{a2, 0, 2}, {a1, 0, 1}})), "");

  // {} matches an empty Labels however it was built (default or make({})).
  EvalCmd no_labels = eval_of("eval instant at 1m vector(1)\n  {} 1\n");
  EXPECT_EQ(compare_result(no_labels, vec({{model::Labels(), 0, 1}})), "");
  EXPECT_EQ(compare_result(no_labels, vec({{L({}), 0, 1}})), "");

  EvalCmd empty = eval_of("eval instant at 1m x\n");
  EXPECT_EQ(compare_result(empty, vec({})), "");
  EXPECT_NE(compare_result(empty, vec({{a1, 0, 1}})), "");
}

TEST(PromqlTestCompare, ScalarsAndMatrices) {
  EvalCmd s = eval_of("eval instant at 1m 1+1\n  2\n");
  promql::QueryResult r;
  r.value = promql::Scalar{60000, 2};
  EXPECT_EQ(compare_result(s, r), "");
  r.value = promql::Scalar{60000, 3};
  EXPECT_EQ(compare_result(s, r), "expected scalar 2 but got 3");
  EXPECT_EQ(compare_result(s, vec({})), "expected scalar 2, got a vector");

  EvalCmd m = eval_of("eval range from 0 to 2m step 1m x\n  x{a=\"1\"} 1 _ 3\n  x{a=\"2\"} 1+1x2\n");
  auto a1 = L({{"__name__", "x"}, {"a", "1"}}), a2 = L({{"__name__", "x"}, {"a", "2"}});
  promql::QueryResult mr;
  mr.value = promql::Matrix{{a1, {{0, 1}, {120000, 3}}}, {a2, {{0, 1}, {60000, 2}, {120000, 3}}}};
  EXPECT_EQ(compare_result(m, mr), "");
  mr.value = promql::Matrix{{a1, {{0, 1}, {60000, 3}}}, {a2, {{0, 1}, {60000, 2}, {120000, 3}}}};
  EXPECT_THAT(compare_result(m, mr), StartsWith("expected point 1 of {__name__=\"x\", a=\"1\"} at t=120000, but it i"));
  mr.value = promql::Matrix{{a1, {{0, 1}, {60000, 2}, {120000, 3}}}, {a2, {{0, 1}, {60000, 2}, {120000, 3}}}};
  EXPECT_THAT(compare_result(m, mr), StartsWith("expected 2 points for {__name__=\"x\", a=\"1\"} (1 _ 3)"));
  mr.value = promql::Matrix{{a2, {{0, 1}, {60000, 2}, {120000, 3}}}, {a1, {{0, 1}, {120000, 3}}}};
  EXPECT_THAT(compare_result(m, mr), StartsWith("matrix results must be sorted by labels and un"));
  mr.value = promql::Matrix{{a1, {{0, 1}, {120000, 3}}}, {a2, {{0, 1}, {60000, 2.5}, {120000, 3}}}};
  EXPECT_THAT(compare_result(m, mr), StartsWith("expected 2 at t=60000 for {__name__=\"x\", a=\"2\"} but got 2.5"));

  EvalCmd too_many = eval_of("eval range from 0 to 1m step 1m x\n  x 1 2 3\n");
  mr.value = promql::Matrix{{L({{"__name__", "x"}}), {{0, 1}, {60000, 2}}}};
  EXPECT_THAT(compare_result(too_many, mr),
              "expected 3 points for {__name__=\"x\"}, but the query time range cannot return this many points");
}

TEST(PromqlTestCompare, Failures) {
  EvalCmd any = eval_of("eval_fail instant at 1m x\n");
  EXPECT_EQ(check_failure(any, "whatever"), "");
  EvalCmd msg = eval_of("eval instant at 1m x\n  expect fail msg: exact text\n");
  EXPECT_EQ(check_failure(msg, "exact text"), "");
  EXPECT_EQ(check_failure(msg, "exact text!"), "expected error \"exact text\", got: exact text!");
  EvalCmd re = eval_of("eval_fail instant at 1m x\n  expected_fail_regexp found duplicate series.*match group\n");
  EXPECT_EQ(check_failure(re, "found duplicate series for the match group {a=\"1\"}"), "");
  EXPECT_NE(check_failure(re, "other"), "");
}

TEST(PromqlTestCompare, Annotations) {
  EvalCmd warn = eval_of("eval_warn instant at 1m x\n");
  promql::QueryResult r = vec({});
  EXPECT_EQ(check_annotations(warn, r), "expected warn annotations but none were reported");
  r.warnings = {"PromQL warning: w"};
  EXPECT_EQ(check_annotations(warn, r), "");
  EvalCmd specific = eval_of("eval instant at 1m x\n  expect info msg: PromQL info: i\n  expect no_warn\n");
  r.infos = {"PromQL info: i"};
  EXPECT_EQ(check_annotations(specific, r), "unexpected warn annotation \"PromQL warning: w\"");
  r.warnings.clear();
  EXPECT_EQ(check_annotations(specific, r), "");
  r.infos.push_back("PromQL info: other");
  EXPECT_EQ(check_annotations(specific, r), "unexpected info annotation \"PromQL info: other\"");
  EvalCmd plain = eval_of("eval instant at 1m x\n");
  EXPECT_EQ(check_annotations(plain, r), "");  // plain eval: annotations not checked
}

// A backend answering from a table: query text -> f(spec, t) for instant
// queries; range queries are assembled from the instant answers (or from an
// override), so the runner's re-runs can be observed and broken on purpose.
class FakeBackend : public Backend {
 public:
  using Fn = std::function<promql::QueryResult(const QuerySpec&, int64_t)>;
  std::map<std::string, Fn> instant_fns;
  std::map<std::string, std::function<promql::QueryResult(int64_t, int64_t, int64_t)>> range_overrides;
  std::vector<std::string> log;
  int clears = 0;
  std::vector<int> loads;
  Status load_status = Status::ok();
  bool pinnable_result = true;

  Status clear() override {
    ++clears;
    return Status::ok();
  }
  Status load(const LoadCmd& c) override {
    loads.push_back(c.line);
    return load_status;
  }
  promql::QueryResult instant(const QuerySpec& q, int64_t t) override {
    log.push_back("instant " + q.text + (q.pin_at_ms ? " @" + std::to_string(*q.pin_at_ms) : "") +
                  " t=" + std::to_string(t));
    return instant_fns.at(q.text)(q, t);
  }
  promql::QueryResult range(const QuerySpec& q, int64_t s, int64_t e, int64_t step) override {
    log.push_back("range " + q.text + " " + std::to_string(s) + ".." + std::to_string(e));
    if (auto it = range_overrides.find(q.text); it != range_overrides.end()) return it->second(s, e, step);
    promql::QueryResult out;
    promql::Matrix m;
    for (int64_t t = s; t <= e; t += step) {
      promql::QueryResult r = instant_fns.at(q.text)(q, t);
      if (r.error) return r;
      if (auto* sc = std::get_if<promql::Scalar>(&r.value)) {
        if (m.empty()) m.push_back({model::Labels(), {}});
        m[0].samples.push_back({t, sc->v});
      } else {
        for (const auto& vs : std::get<promql::Vector>(r.value)) {
          auto it = std::find_if(m.begin(), m.end(), [&](const auto& ms) { return ms.labels == vs.labels; });
          if (it == m.end()) it = m.insert(m.end(), {vs.labels, {}});
          it->samples.push_back({t, vs.v});
        }
      }
    }
    std::sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.labels < b.labels; });
    out.value = std::move(m);
    return out;
  }
  bool pinnable(const std::string&) override { return pinnable_result; }
};

promql::QueryResult error_result(std::string msg) {
  promql::QueryResult r;
  r.error = promql::QueryError{promql::ErrorType::kExecution, std::move(msg)};
  return r;
}

TEST(PromqlTestRunner, ReportsEachFailingEvalWithFileLineAndQuery) {
  Script s = parse_ok(R"(load 1m
  x 1 2

eval instant at 1m x
  x 2

eval instant at 1m y
  y 5

eval_fail instant at 1m z

eval instant at 1m z
  z 1
)");
  FakeBackend b;
  auto x = L({{"__name__", "x"}}), y = L({{"__name__", "y"}});
  b.instant_fns["x"] = [&](const QuerySpec&, int64_t) { return vec({{x, 0, 2}}); };
  b.instant_fns["y"] = [&](const QuerySpec&, int64_t) { return vec({{y, 0, 4}}); };
  b.instant_fns["z"] = [&](const QuerySpec&, int64_t) { return error_result("boom"); };
  RunReport r = run_script(s, b);
  EXPECT_EQ(r.evals, 4);
  EXPECT_EQ(r.passed, 2);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].line, 7);
  EXPECT_EQ(r.failures[0].query, "y");
  EXPECT_THAT(r.failures[0].to_string(), StartsWith("t.test:7: y\n    expected 5 for {__name__=\"y\"} but g"));
  EXPECT_THAT(r.failures[1].line, 12);
  EXPECT_EQ(r.failures[1].message, "error evaluating query: boom");
  EXPECT_EQ(b.clears, 1);
  EXPECT_EQ(b.loads, std::vector<int>{1});
}

TEST(PromqlTestRunner, ReRunsInstantEvalsInRangeModeAndPinned) {
  Script s = parse_ok("eval instant at 100s x\n  x 1\n");
  FakeBackend b;
  auto x = L({{"__name__", "x"}});
  b.instant_fns["x"] = [&](const QuerySpec&, int64_t) { return vec({{x, 0, 1}}); };
  RunReport r = run_script(s, b);
  EXPECT_TRUE(r.failures.empty()) << r.failures[0].to_string();
  std::vector<std::string> want = {
      "instant x t=100000",        "range x 40000..160000",       "instant x @100000 t=-1000000",
      "range x -1060000..-940000", "instant x @100000 t=0",       "range x -60000..60000",
      "instant x @100000 t=20000", "range x -40000..80000",       "instant x @100000 t=100000",
      "range x 40000..160000",     "instant x @100000 t=1000000", "range x 940000..1060000"};
  EXPECT_EQ(b.log, want);

  // At t=0 the pinned times are -1s, 0, 1s.
  FakeBackend b0;
  b0.instant_fns["x"] = b.instant_fns["x"];
  run_script(parse_ok("eval instant at 0s x\n  x 1\n"), b0);
  EXPECT_EQ(std::count_if(b0.log.begin(), b0.log.end(),
                          [](const std::string& l) { return l.rfind("instant x @0 t=", 0) == 0; }),
            3);
  EXPECT_NE(std::find(b0.log.begin(), b0.log.end(), "instant x @0 t=-1000"), b0.log.end());

  // A range result that disagrees with the instant one is reported.
  FakeBackend bad;
  bad.instant_fns["x"] = b.instant_fns["x"];
  bad.range_overrides["x"] = [&](int64_t, int64_t, int64_t) {
    promql::QueryResult out;
    out.value = promql::Matrix{{x, {{40000, 1}, {100000, 7}}}};
    return out;
  };
  RunReport rb = run_script(s, bad);
  ASSERT_EQ(rb.failures.size(), 1u);
  EXPECT_THAT(rb.failures[0].message,
              StartsWith("in range mode (t-1m..t+1m step 1m, middle step): expected 1 for {__name"));

  // A pinned variant that disagrees is reported with its pin and time.
  FakeBackend pinned;
  pinned.instant_fns["x"] = [&](const QuerySpec& q, int64_t t) {
    return vec({{x, 0, q.pin_at_ms && t < 0 ? 9.0 : 1.0}});
  };
  RunReport rp = run_script(s, pinned);
  ASSERT_EQ(rp.failures.size(), 1u);
  EXPECT_THAT(
      rp.failures[0].message,
      StartsWith("with every selector pinned \"@ 100\", evaluated at -1000000 ms: expected 1 for {__name__=\"x\"} "));

  // Not pinnable (e.g. time()): no variants; and no range-mode check for start().
  FakeBackend np;
  np.pinnable_result = false;
  np.instant_fns["x @ start()"] = b.instant_fns["x"];
  run_script(parse_ok("eval instant at 100s x @ start()\n  x 1\n"), np);
  EXPECT_THAT(np.log, std::vector<std::string>{"instant x @ start() t=100000"});

  // Ordered evals skip the comparison of the (label-sorted) range result.
  FakeBackend ord;
  ord.instant_fns["x"] = b.instant_fns["x"];
  ord.range_overrides["x"] = bad.range_overrides["x"];
  RunReport ro = run_script(parse_ok("eval_ordered instant at 100s x\n  x 1\n"), ord, {true, false, true});
  EXPECT_TRUE(ro.failures.empty());
}

TEST(PromqlTestRunner, ExpectedFailuresAndRanges) {
  FakeBackend b;
  auto x = L({{"__name__", "x"}});
  b.instant_fns["bad"] = [&](const QuerySpec&, int64_t) { return error_result("many-to-many matching not allowed"); };
  b.instant_fns["x"] = [&](const QuerySpec&, int64_t t) { return vec({{x, t, t / 60000.0}}); };
  Script s = parse_ok(R"(eval_fail instant at 1m bad
  expected_fail_regexp many-to-many

eval instant at 1m bad
  expect fail msg: other message

eval_fail instant at 1m x

eval range from 0 to 2m step 1m x
  x 0+1x2

eval range from 0 to 2m step 1m x
  x 0 1 _

eval_fail range from 0 to 2m step 1m bad
)");
  RunReport r = run_script(s, b);
  EXPECT_EQ(r.evals, 6);
  ASSERT_EQ(r.failures.size(), 3u);
  EXPECT_EQ(r.failures[0].line, 4);
  EXPECT_EQ(r.failures[0].message, "expected error \"other message\", got: many-to-many matching not allowed");
  EXPECT_EQ(r.failures[1].line, 7);
  EXPECT_THAT(r.failures[1].message, StartsWith("expected an error, got vect"));
  EXPECT_THAT(r.failures[2].line, 12);
  EXPECT_THAT(r.failures[2].message, StartsWith("expected 2 points for {__name__=\"x\"} (0 1 _), "));
}

TEST(PromqlTestRunner, LoadErrorStopsTheScript) {
  FakeBackend b;
  b.load_status = Status::error("out of order");
  b.instant_fns["x"] = [](const QuerySpec&, int64_t) { return vec({}); };
  RunReport r = run_script(parse_ok("load 1m\n  x 1\n\neval instant at 1m x\n"), b);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].to_string(), "t.test:1: load\n    out of order");
  EXPECT_EQ(r.evals, 0);
}

TEST(PromqlTestRunner, AnExceptionFailsOneEvalOnly) {
  FakeBackend b;
  b.instant_fns["boom"] = [](const QuerySpec&, int64_t) -> promql::QueryResult { throw std::bad_alloc(); };
  b.instant_fns["x"] = [](const QuerySpec&, int64_t) { return vec({}); };
  RunReport r = run_script(parse_ok("eval instant at 1m boom\n\neval instant at 1m x\n"), b);
  EXPECT_EQ(r.evals, 2);
  EXPECT_EQ(r.passed, 1);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].line, 1);
  EXPECT_EQ(r.failures[0].message, "exception thrown by the backend: std::bad_alloc");
}

// Every script under tests/promql/testdata parses, whatever the engine does.
TEST(PromqlTestScript, AllTestdataScriptsParse) {
  const std::string dir = testing::source_dir() + "/tests/promql/testdata";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".test") continue;
    ++files;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    auto s = parse_script(text.str(), e.path().filename().string());
    ASSERT_TRUE(s) << s.error();
    int evals = 0;
    for (const Command& c : s->commands) evals += std::holds_alternative<EvalCmd>(c);
    EXPECT_GT(evals, 10) << e.path();
  }
  EXPECT_GE(files, 10);
}

// "name@kind[:ms]" for every selector and subquery, in tree order.
void collect_ats(promql::Expr& e, std::vector<std::string>& out) {
  auto fmt = [](const std::string& what, const promql::AtModifier& at) {
    switch (at.kind) {
      case promql::AtKind::kNone:
        return what + "@none";
      case promql::AtKind::kStart:
        return what + "@start";
      case promql::AtKind::kEnd:
        return what + "@end";
      case promql::AtKind::kTimestamp:
        return what + "@" + std::to_string(at.t_ms);
    }
    return what;
  };
  if (auto* vs = std::get_if<promql::VectorSelector>(&e.node)) out.push_back(fmt(vs->name, vs->at));
  if (auto* sq = std::get_if<promql::SubqueryExpr>(&e.node)) out.push_back(fmt("subquery", sq->at));
  detail::for_children(e, [&](promql::Expr& c) { collect_ats(c, out); });
}

std::vector<std::string> pinned(std::string_view query, int64_t at) {
  promql::ParseResult p = promql::parse(query);
  EXPECT_TRUE(p.ok()) << p.error.to_string(query);
  if (!p.ok()) return {};
  pin_selectors(*p.expr, at);
  std::vector<std::string> out;
  collect_ats(*p.expr, out);
  return out;
}

bool time_dependent(std::string_view query) {
  promql::ParseResult p = promql::parse(query);
  EXPECT_TRUE(p.ok()) << p.error.to_string(query);
  return p.ok() && calls_time_dependent(*p.expr);
}

TEST(PromqlTestPinning, SetsAtLikePrometheusRewrite) {
  using V = std::vector<std::string>;
  EXPECT_EQ(pinned("sum(rate(x[5m])) + y @ 50 + z @ start() - w @ end()", 100000),
            (V{"x@100000", "y@50000", "z@100000", "w@100000"}));
  EXPECT_EQ(pinned("max_over_time(x[5m:1m])", 7000), (V{"subquery@7000", "x@none"}));
  EXPECT_EQ(pinned("max_over_time(x[5m:1m] @ 30)", 7000), (V{"subquery@30000", "x@none"}));
  EXPECT_EQ(pinned("topk(scalar(k), -(a offset 1m))", 0), (V{"k@0", "a@0"}));
  EXPECT_EQ(pinned("1 + 2", 5), V{});
}

TEST(PromqlTestPinning, TimeDependentCallsOutsideSubqueries) {
  EXPECT_TRUE(time_dependent("time()"));
  EXPECT_TRUE(time_dependent("timestamp(x)"));
  EXPECT_TRUE(time_dependent("sum(predict_linear(x[5m], 60))"));
  EXPECT_TRUE(time_dependent("x + on() group_left hour()"));
  EXPECT_TRUE(time_dependent("day_of_year(x) > 3"));
  EXPECT_FALSE(time_dependent("rate(x[5m])"));
  EXPECT_FALSE(time_dependent("max_over_time(vector(time())[5m:1m])"));
  EXPECT_FALSE(time_dependent("x @ start()"));
}

// Loading into the real head: times i*step, gaps skipped, stale bits kept.
TEST(PromqlTestLoad, AppendsIntoTheHead) {
  Script s = parse_ok("load 1m\n  x{a=\"1\"} 1 _ stale 4\n  y 0+1x2\n\nload 1m\n  x{a=\"1\"} 9\n");
  tsdb::Head head;
  ASSERT_TRUE(append_load(head, std::get<LoadCmd>(s.commands[0])));
  auto q = head.querier(INT64_MIN / 2, INT64_MAX / 2);
  ASSERT_TRUE(q) << q.error();
  auto set = (*q)->select(INT64_MIN / 2, INT64_MAX / 2, {{model::Matcher::Type::kEq, "__name__", "x"}});
  ASSERT_TRUE(set->next());
  EXPECT_EQ(set->at().labels(), L({{"__name__", "x"}, {"a", "1"}}));
  std::vector<model::Sample> got;
  auto it = set->at().iterator();
  while (it->next()) got.push_back(it->at());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].t_ms, 0);
  EXPECT_EQ(got[0].v, 1);
  EXPECT_EQ(got[1].t_ms, 120000);
  EXPECT_TRUE(model::is_stale(got[1].v));
  EXPECT_EQ(got[2].t_ms, 180000);
  EXPECT_EQ(got[2].v, 4);
  EXPECT_FALSE(set->next());

  // A later block may not go back in time (the store rejects it, as Prometheus's would).
  Status st = append_load(head, std::get<LoadCmd>(s.commands[1]));
  ASSERT_FALSE(st);
  EXPECT_THAT(st.message(), StartsWith("line 6: append {__name__=\"x\", a=\"1\"} at 0 ms: "));
}

}  // namespace
}  // namespace llmon::promqltest
