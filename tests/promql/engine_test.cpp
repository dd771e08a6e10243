// Engine tests on a real in-memory store (tsdb::Head): result shapes,
// windows, matching errors and the limits (samples, series, timeout,
// concurrency). Function and operator semantics are covered by the
// promqltest scripts (tests/promql/testdata/).
#include "promql/engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "tsdb/head.h"

namespace llmon::promql {
namespace {

model::Labels L(std::vector<model::Label> l) {
  return *model::Labels::make(std::move(l));
}

class EngineTest : public ::testing::Test {
 protected:
  // foo{i="0".."n-1"}: value i*1000 + t_s at every 15 s from 0 to 3600 s;
  // counter c{}: +1 per second with a reset at 1800 s.
  void SetUp() override {
    auto app = head_.appender();
    for (int i = 0; i < 3; ++i)
      for (int64_t t = 0; t <= 3600; t += 15)
        ASSERT_TRUE(app->append(0, L({{"__name__", "foo"}, {"i", std::to_string(i)}}), t * 1000,
                                i * 1000.0 + static_cast<double>(t)));
    for (int64_t t = 0; t <= 3600; t += 15) {
      double v = t < 1800 ? static_cast<double>(t) : static_cast<double>(t - 1800);
      ASSERT_TRUE(app->append(0, L({{"__name__", "c"}, {"job", "x"}}), t * 1000, v));
    }
    ASSERT_TRUE(app->commit());
  }
  tsdb::Head head_;
};

TEST_F(EngineTest, InstantVectorAndScalar) {
  Engine e(head_, {});
  auto r = e.instant("foo", 100000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  ASSERT_EQ(r.type, ValueType::kVector);
  const auto& v = std::get<Vector>(r.value);
  ASSERT_EQ(v.size(), 3u);
  for (const auto& s : v) {
    EXPECT_EQ(s.t_ms, 100000);
    // Newest sample at or before 100 s is at 90 s.
    EXPECT_DOUBLE_EQ(s.v, std::stod(std::string(s.labels.get("i"))) * 1000 + 90);
  }
  auto s = e.instant("1 + 2 * 3", 4000);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.type, ValueType::kScalar);
  EXPECT_DOUBLE_EQ(std::get<Scalar>(s.value).v, 7);
  auto str = e.instant("\"hi\"", 4000);
  ASSERT_TRUE(str.ok());
  EXPECT_EQ(std::get<String>(str.value).v, "hi");
}

TEST_F(EngineTest, LookbackDeltaEndsASeries) {
  Engine e(head_, {});
  // Last sample at 3600 s; 5 m lookback: visible up to 3900 s inclusive.
  EXPECT_EQ(std::get<Vector>(e.instant("foo", 3900000).value).size(), 3u);
  EXPECT_EQ(std::get<Vector>(e.instant("foo", 3900001).value).size(), 0u);
  QueryParams p;
  p.lookback_delta_ms = 60000;
  EXPECT_EQ(std::get<Vector>(e.instant("foo", 3700000, p).value).size(), 0u);
}

TEST_F(EngineTest, RangeQueryShapeAndSorting) {
  Engine e(head_, {});
  auto r = e.range("sum by (i) (foo) * 2", 0, 600000, 60000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  const auto& m = std::get<Matrix>(r.value);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].labels.get("i"), "0");
  EXPECT_EQ(m[2].labels.get("i"), "2");
  ASSERT_EQ(m[1].samples.size(), 11u);
  EXPECT_EQ(m[1].samples[3].t_ms, 180000);
  EXPECT_DOUBLE_EQ(m[1].samples[3].v, (1000 + 180) * 2);
  // A scalar range query is one series without labels.
  auto s = e.range("time()", 0, 120000, 60000);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(std::get<Matrix>(s.value).size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<Matrix>(s.value)[0].samples[2].v, 120);
}

TEST_F(EngineTest, RateHandlesCounterReset) {
  Engine e(head_, {});
  // Window [1740, 2040] s holds 1740..1785 then 0..240 (from 1800 s): the
  // reset adds 1785 back, so the increase is 240 - 1740 + 1785 = 285 over
  // 300 s (the 15 lost at the reset is lost in Prometheus too).
  auto r = e.instant("rate(c[5m])", 2040000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  const auto& v = std::get<Vector>(r.value);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NEAR(v[0].v, 0.95, 1e-9);
  EXPECT_EQ(v[0].labels.get("__name__"), "");  // rate drops the metric name
  EXPECT_EQ(v[0].labels.get("job"), "x");
}

TEST_F(EngineTest, OffsetAndAtModifiers) {
  Engine e(head_, {});
  auto a = e.instant("foo{i=\"0\"} offset 10m", 1200000);
  auto b = e.instant("foo{i=\"0\"} @ 600", 1200000);
  auto c = e.instant("foo{i=\"0\"} @ end() offset -1m", 600000);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_DOUBLE_EQ(std::get<Vector>(a.value).at(0).v, 600);
  EXPECT_DOUBLE_EQ(std::get<Vector>(b.value).at(0).v, 600);
  EXPECT_DOUBLE_EQ(std::get<Vector>(c.value).at(0).v, 660);
  // @ is step-invariant in a range query.
  auto r = e.range("foo{i=\"1\"} @ 300", 0, 600000, 300000);
  ASSERT_TRUE(r.ok());
  for (const auto& s : std::get<Matrix>(r.value)[0].samples) EXPECT_DOUBLE_EQ(s.v, 1300);
}

TEST_F(EngineTest, MatrixResultAndSubquery) {
  Engine e(head_, {});
  auto r = e.instant("foo{i=\"2\"}[1m]", 120000);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.type, ValueType::kMatrix);
  // Prometheus 2: both ends inclusive: 60, 75, 90, 105, 120.
  EXPECT_EQ(std::get<Matrix>(r.value).at(0).samples.size(), 5u);
  auto sq = e.instant("max_over_time(foo{i=\"0\"}[10m:1m])", 1230000);
  ASSERT_TRUE(sq.ok()) << sq.error->message;
  EXPECT_DOUBLE_EQ(std::get<Vector>(sq.value).at(0).v, 1200);  // inner steps 630..1200 s
  auto bad = e.range("foo[1m]", 0, 60000, 1000);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error->type, ErrorType::kBadData);
}

TEST_F(EngineTest, OrMergesOneSeriesFedBySidesAtDifferentSteps) {
  Engine e(head_, {});
  // The sum exists until the lookback runs out (3900 s), vector(0) after:
  // both sides make the series {} at different steps (found by the
  // differential test: a self-move emptied the merged series).
  auto r = e.range("sum(foo{i=\"0\"}) or vector(0)", 3780000, 3960000, 60000);
  ASSERT_TRUE(r.ok()) << r.error->message;
  const auto& m = std::get<Matrix>(r.value);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].samples.size(), 4u);
  EXPECT_DOUBLE_EQ(m[0].samples[0].v, 3600);
  EXPECT_DOUBLE_EQ(m[0].samples[2].v, 3600);
  EXPECT_DOUBLE_EQ(m[0].samples[3].v, 0);
}

TEST_F(EngineTest, MatchingErrorsUsePrometheusWording) {
  Engine e(head_, {});
  auto r = e.instant("foo + on() foo", 100000);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error->message.find("many-to-many matching not allowed"), std::string::npos) << r.error->message;
  auto d = e.instant("-{__name__=~\"foo|c\",i=~\"0|\"} ", 100000);
  ASSERT_TRUE(d.ok()) << d.error->message;  // foo{i=0} and c{job=x} differ after dropping the name
  auto dup = e.instant("label_replace(foo, \"i\", \"x\", \"i\", \".*\")", 100000);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error->message, "vector cannot contain metrics with the same labelset");
  auto parse = e.instant("sum(", 0);
  ASSERT_FALSE(parse.ok());
  EXPECT_EQ(parse.error->type, ErrorType::kBadData);
  EXPECT_NE(parse.error->message.find("parse error"), std::string::npos);
}

TEST_F(EngineTest, MaxSamplesIsAnExecutionError) {
  EngineOptions o;
  o.max_samples = 100;
  Engine e(head_, o);
  auto ok = e.instant("foo", 100000);
  EXPECT_TRUE(ok.ok());
  auto r = e.range("foo", 0, 3600000, 15000);  // 3 x 241 points
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->type, ErrorType::kExecution);
  EXPECT_EQ(r.error->message, "query processing would load too many samples into memory in query execution");
}

TEST_F(EngineTest, MaxSeriesAndResolutionLimits) {
  EngineOptions o;
  o.max_series = 2;
  Engine e(head_, o);
  auto r = e.instant("foo", 100000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->type, ErrorType::kExecution);
  auto res = e.range("1", 0, 20000000, 1000);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error->type, ErrorType::kBadData);
  EXPECT_NE(res.error->message.find("11,000 points"), std::string::npos);
}

TEST_F(EngineTest, TimeoutStopsAHeavyQuery) {
  EngineOptions o;
  o.timeout = std::chrono::milliseconds(1);
  Engine e(head_, o);
  // Nested subqueries at 1 ms resolution cannot finish in 1 ms.
  auto r = e.instant("max_over_time(sum_over_time(foo[1h:10ms])[1h:1s])", 3600000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->type, ErrorType::kTimeout);
}

TEST_F(EngineTest, ExpiredDeadlineNeverRuns) {
  Engine e(head_, {});
  QueryParams p;
  p.timeout = std::chrono::milliseconds(-1);
  auto r = e.instant("1", 0, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->type, ErrorType::kTimeout);
  EXPECT_EQ(r.error->message, "query timed out in query queue");
}

TEST_F(EngineTest, ConcurrencyGateQueuesAndTimesOut) {
  EngineOptions o;
  o.max_concurrent = 1;
  o.timeout = std::chrono::milliseconds(20000);
  Engine e(head_, o);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&] {
      for (int j = 0; j < 20; ++j)
        if (e.range("rate(foo[1m])", 0, 3600000, 60000).ok()) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 80);
}

}  // namespace
}  // namespace llmon::promql
