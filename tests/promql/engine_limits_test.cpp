// The engine's limits under heavy queries, without an oracle at hand: the
// samples a query holds (max_samples) are counted where Prometheus 2.42
// counts them -- the windows of range functions, subqueries, step-invariant
// expressions -- with the boundaries and peaks Prometheus reported for the
// same data (engine_limits_prometheus_diff_test.cpp checks them live), and
// the deadline stops evaluation between series and nodes.
#include <gtest/gtest.h>

#include <string>

#include "promql/engine.h"
#include "tsdb/head.h"

namespace llmon::promql {
namespace {

constexpr int64_t kEndMs = 4 * 3600 * 1000;
constexpr const char* kTooMany = "query processing would load too many samples into memory in query execution";

// x{i="0".."2"}: one sample a second from 0 to 4 h (14 401 each).
class EngineLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto app = head_.appender();
    for (int i = 0; i < 3; ++i) {
      auto l = model::Labels::make({{"__name__", "x"}, {"i", std::to_string(i)}});
      ASSERT_TRUE(l.has_value());
      for (int64_t t = 0; t <= kEndMs; t += 1000) ASSERT_TRUE(app->append(0, *l, t, static_cast<double>(t % 97)));
    }
    ASSERT_TRUE(app->commit().is_ok());
  }

  QueryResult instant(const std::string& q, int64_t max_samples, int64_t t_ms = kEndMs) {
    EngineOptions o;
    o.max_samples = max_samples;
    Engine e(head_, o);
    return e.instant(q, t_ms);
  }
  QueryResult range(const std::string& q, int64_t max_samples, int64_t start_ms, int64_t step_ms) {
    EngineOptions o;
    o.max_samples = max_samples;
    Engine e(head_, o);
    return e.range(q, start_ms, kEndMs, step_ms);
  }
  static void expect_too_many(const QueryResult& r, const std::string& what) {
    ASSERT_FALSE(r.ok()) << what << " succeeded with peak " << r.stats.peak_samples;
    EXPECT_EQ(r.error->type, ErrorType::kExecution) << what;
    EXPECT_EQ(r.error->message, kTooMany) << what;
  }

  tsdb::Head head_;
};

TEST_F(EngineLimitsTest, RangeFunctionCountsItsWindow) {
  // The issue's query: one window of 14 401 samples, plus the output.
  expect_too_many(instant(R"(sum_over_time(x{i="0"}[4h]))", 10000), "4h window, limit 10000");
  expect_too_many(instant(R"(sum_over_time(x{i="0"}[4h]))", 14401), "4h window, limit 14401");
  auto ok = instant(R"(sum_over_time(x{i="0"}[4h]))", 14402);
  ASSERT_TRUE(ok.ok()) << ok.error->message;
  EXPECT_EQ(ok.stats.peak_samples, 14402);
  EXPECT_EQ(std::get<Vector>(ok.value).size(), 1u);
  // 9 999 samples in the window + 1 output fit 10 000; 10 000 + 1 do not.
  EXPECT_TRUE(instant(R"(sum_over_time(x{i="0"}[9998s]))", 10000).ok());
  expect_too_many(instant(R"(sum_over_time(x{i="0"}[9999s]))", 10000), "10000-sample window");
}

TEST_F(EngineLimitsTest, OnlyTheCurrentSeriesWindowIsHeld) {
  // Three windows of 9 997 samples: each is released before the next; the
  // outputs so far stay (Prometheus: peak 10 000, then 10 001).
  auto r = instant("count_over_time(x[9996s])", 10000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  EXPECT_EQ(r.stats.peak_samples, 10000);
  expect_too_many(instant("count_over_time(x[9997s])", 10000), "three 9998-sample windows");
}

TEST_F(EngineLimitsTest, RangeVectorResultHoldsAllItsSamples) {
  auto r = instant("x[3332s]", 10000);  // 3 x 3333
  ASSERT_TRUE(r.ok()) << r.error->message;
  EXPECT_EQ(r.stats.peak_samples, 9999);
  expect_too_many(instant("x[3333s]", 10000), "3 x 3334 samples");
}

TEST_F(EngineLimitsTest, SubqueryIsHeldWhileTheFunctionRuns) {
  // Inner result 3 601 + window 3 601 + output 1 (Prometheus: peak 7 203).
  auto r = instant(R"(max_over_time(x{i="0"}[1h:1s]))", 10000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  EXPECT_EQ(r.stats.peak_samples, 7203);
  expect_too_many(instant(R"(max_over_time(x{i="0"}[2h:1s]))", 10000), "7201 + 7201");
}

TEST_F(EngineLimitsTest, StepInvariantExpressionsAreEvaluatedOnce) {
  // Evaluated at the first step, then repeated: 7 201 samples, not the
  // 14 403 a per-step evaluation of vector(1) would hold.
  for (const char* q : {"vector(1)", "1 + 1", "sum(x @ 14400)"}) {
    auto r = range(q, 10000, kEndMs - 7200 * 1000, 1000);
    ASSERT_TRUE(r.ok()) << q << ": " << r.error->message;
    EXPECT_EQ(r.stats.peak_samples, 7201) << q;
  }
  // Each repetition still counts: 3 x 7 201.
  expect_too_many(range("x @ 14400", 10000, kEndMs - 7200 * 1000, 1000), "x @ 14400 over 7201 steps");
  // A literal is one sample per step.
  expect_too_many(range("1", 10000, kEndMs - 3 * 3600 * 1000, 1000), "1 over 10801 steps");
}

TEST_F(EngineLimitsTest, OperatorsHoldTheirArgumentsAndOutputs) {
  // Both sides (2 x 2 703) + one step's inputs (6) + all outputs (2 703).
  auto r = range("x + x", 10000, kEndMs - 3600 * 1000, 4000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  EXPECT_EQ(r.stats.peak_samples, 8115);
  expect_too_many(range("x + x", 10000, kEndMs - 3600 * 1000, 3000), "x + x at 3 s");
  auto s = range("sum(x)", 10000, kEndMs - 3600 * 1000, 2000);
  ASSERT_TRUE(s.ok()) << s.error->message;
  EXPECT_EQ(s.stats.peak_samples, 7207);
}

TEST_F(EngineLimitsTest, ALimitOfZeroMeansUnlimited) {
  auto r = instant("count_over_time(x[4h])", 0);
  ASSERT_TRUE(r.ok()) << r.error->message;
  EXPECT_EQ(r.stats.peak_samples, 14401 + 3);
}

TEST_F(EngineLimitsTest, TimeoutStopsARangeFunctionBetweenSeries) {
  EngineOptions o;
  o.timeout = std::chrono::milliseconds(20);
  Engine e(head_, o);
  // 3 series x 10 001 steps x 5-minute windows: far more than 20 ms.
  auto r = e.range("quantile_over_time(0.5, x[5m])", kEndMs - 10000 * 1000, kEndMs, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->type, ErrorType::kTimeout);
  EXPECT_EQ(r.error->message.rfind("query timed out in ", 0), 0u) << r.error->message;
}

}  // namespace
}  // namespace llmon::promql
