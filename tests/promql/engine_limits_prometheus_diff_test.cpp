// Differential test of the engine's max_samples accounting against a real
// Prometheus 2.42: the same data are loaded here (a tsdb::Head) and into a
// `prometheus --query.max-samples=10000` on 127.0.0.1 (blocks written by
// `promtool tsdb create-blocks-from openmetrics`), and each query of the
// table below -- chosen to land on both sides of the limit: range functions
// over long windows, subqueries, operators, aggregations, step-invariant
// (`@`, constant) expressions, range queries of many steps -- must
//   * fail in both with the same errorType and message, or
//   * succeed in both with the same number of output samples and the same
//     peak (Prometheus's stats.samples.peakSamples vs QueryStats::peak_samples),
// which is what "counts samples at the same points" means.
//
// Skipped (with the reason) when prometheus or promtool is not installed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/api_client.h"
#include "promql/engine.h"
#include "support/http_client.h"
#include "support/prometheus_process.h"
#include "support/subprocess.h"
#include "support/test_paths.h"
#include "tsdb/head.h"

namespace llmon::promql {
namespace {

constexpr int64_t kMaxSamples = 10000;
// The data end on a whole hour (a fixed time: Prometheus's retention is
// relative to its newest block, not to the clock).
constexpr int64_t kEndS = 1699999200;
constexpr int64_t kStartS = kEndS - 5 * 3600;

struct Case {
  std::string query;
  int64_t start_s;  // instant: the time
  int64_t end_s = 0;
  int64_t step_s = 0;  // 0: instant query
};

std::string describe(const Case& c) {
  if (c.step_s == 0) return c.query + " @" + std::to_string(c.start_s - kEndS) + "s";
  return c.query + " range [" + std::to_string(c.start_s - kEndS) + "s, " + std::to_string(c.end_s - kEndS) +
         "s] step " + std::to_string(c.step_s) + "s";
}

// What a query gave: an error, or the number of samples and the peak.
struct Outcome {
  bool ok = false;
  std::string error_type;
  std::string error;
  int64_t samples = 0;
  int64_t peak = 0;
  std::string text() const {
    if (!ok) return "error " + error_type + ": " + error;
    return "ok, " + std::to_string(samples) + " samples, peak " + std::to_string(peak);
  }
};

Outcome from_prometheus(const nlohmann::json& j) {
  Outcome o;
  if (j.value("status", "") != "success") {
    o.error_type = j.value("errorType", "?");
    o.error = j.value("error", "?");
    return o;
  }
  o.ok = true;
  const auto& data = j.at("data");
  const std::string type = data.at("resultType");
  const auto& result = data.at("result");
  if (type == "scalar" || type == "string") {
    o.samples = 1;
  } else if (type == "vector") {
    o.samples = static_cast<int64_t>(result.size());
  } else {
    for (const auto& s : result) o.samples += static_cast<int64_t>(s.at("values").size());
  }
  o.peak = data.at("stats").at("samples").at("peakSamples").get<int64_t>();
  return o;
}

Outcome from_llmon(const QueryResult& r) {
  Outcome o;
  if (!r.ok()) {
    o.error_type = std::string(error_type_text(r.error->type));
    o.error = r.error->message;
    return o;
  }
  o.ok = true;
  if (const auto* v = std::get_if<Vector>(&r.value)) {
    o.samples = static_cast<int64_t>(v->size());
  } else if (const auto* m = std::get_if<Matrix>(&r.value)) {
    for (const auto& s : *m) o.samples += static_cast<int64_t>(s.samples.size());
  } else {
    o.samples = 1;
  }
  o.peak = r.stats.peak_samples;
  return o;
}

class EngineLimitsPrometheusDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    prometheus_ = llmon::testing::find_program("prometheus");
    promtool_ = llmon::testing::find_program("promtool");
    if (prometheus_.empty() || promtool_.empty()) GTEST_SKIP() << "prometheus/promtool not installed";
    std::string t = ::testing::TempDir() + "llmon_limits_diff_XXXXXX";
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
    write_data();
    const pid_t tool = llmon::testing::spawn(
        {promtool_, "tsdb", "create-blocks-from", "openmetrics", dir_ + "/data.om", dir_ + "/blocks"},
        dir_ + "/promtool.log");
    ASSERT_GT(tool, 0);
    const int tool_exit = llmon::testing::wait_exit(tool, std::chrono::seconds(120));
    if (tool_exit < 0) llmon::testing::stop_process(tool, std::chrono::seconds(5));  // still running: end it
    ASSERT_EQ(tool_exit, 0) << llmon::testing::read_text(dir_ + "/promtool.log");
    std::ofstream(dir_ + "/prometheus.yml") << "global:\n  evaluation_interval: 1m\n";
    const Status started =
        prometheus_process_.start(prometheus_, dir_ + "/prometheus.yml", dir_ + "/blocks",
                                  {"--query.max-samples=" + std::to_string(kMaxSamples), "--log.level=warn"}, dir_);
    ASSERT_TRUE(started.is_ok()) << started.message();
  }

  void TearDown() override {
    prometheus_process_.stop();
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  // x{i="0".."2"}: one sample a second for 5 h; y: one every 15 s;
  // z{i="0".."99"}: one a minute. The same samples go into head_.
  void write_data() {
    std::ofstream om(dir_ + "/data.om");
    auto app = head_.appender();
    auto add = [&](const std::string& name, const std::string& label, const std::string& value, int64_t t_s, double v) {
      om << name << "{" << label << "=\"" << value << "\"} " << v << " " << t_s << "\n";
      auto l = model::Labels::make({{"__name__", name}, {label, value}});
      ASSERT_TRUE(l.has_value());
      ASSERT_TRUE(app->append(0, *l, t_s * 1000, v).has_value());
    };
    om << "# TYPE x gauge\n";
    for (int i = 0; i < 3; ++i)
      for (int64_t t = kStartS; t <= kEndS; ++t) add("x", "i", std::to_string(i), t, static_cast<double>(t % 97));
    om << "# TYPE y gauge\n";
    for (int64_t t = kStartS; t <= kEndS; t += 15) add("y", "j", "a", t, static_cast<double>(t % 13));
    om << "# TYPE z gauge\n";
    for (int i = 0; i < 100; ++i)
      for (int64_t t = kStartS; t <= kEndS; t += 60)
        add("z", "i", std::to_string(i), t, static_cast<double>((t / 60 + i) % 7));
    om << "# EOF\n";
    ASSERT_TRUE(app->commit().is_ok());
  }

  Outcome ask_prometheus(const Case& c) {
    std::string body = "stats=all&query=" + net::url_encode(c.query);
    std::string path = "/api/v1/query";
    if (c.step_s == 0) {
      body += "&time=" + std::to_string(c.start_s);
    } else {
      path = "/api/v1/query_range";
      body += "&start=" + std::to_string(c.start_s) + "&end=" + std::to_string(c.end_s) +
              "&step=" + std::to_string(c.step_s);
    }
    std::string raw = "POST " + path +
                      " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body;
    auto r = llmon::testing::http_raw(prometheus_process_.port(), raw, false, 60000);
    Outcome o;
    if (!r.error.empty()) {
      o.error = "transport: " + r.error;
      return o;
    }
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded()) {
      o.error = "bad JSON: " + r.body;
      return o;
    }
    return from_prometheus(j);
  }

  Outcome ask_llmon(Engine& e, const Case& c) {
    if (c.step_s == 0) return from_llmon(e.instant(c.query, c.start_s * 1000));
    return from_llmon(e.range(c.query, c.start_s * 1000, c.end_s * 1000, c.step_s * 1000));
  }

  std::string prometheus_, promtool_, dir_;
  llmon::testing::PrometheusProcess prometheus_process_;
  tsdb::Head head_;
};

TEST_F(EngineLimitsPrometheusDiffTest, SameLimitVerdictsAndPeaks) {
  const int64_t E = kEndS;
  auto inst = [](std::string q, int64_t t) { return Case{std::move(q), t}; };
  auto range = [](std::string q, int64_t s, int64_t e, int64_t step) { return Case{std::move(q), s, e, step}; };
  const std::vector<Case> cases = {
      // Range functions: the window of the current series, plus the outputs so far.
      inst(R"(sum_over_time(x{i="0"}[4h]))", E),
      inst(R"(sum_over_time(x{i="0"}[2h]))", E),
      inst(R"(sum_over_time(x{i="0"}[9998s]))", E),
      inst(R"(sum_over_time(x{i="0"}[9999s]))", E),
      inst(R"(sum_over_time(x{i="0"}[10000s]))", E),
      inst("count_over_time(x[9996s])", E),
      inst("count_over_time(x[9997s])", E),
      inst("count_over_time(y[5h])", E),
      range("rate(x[5m])", E - 3600, E, 1),
      range("rate(x[5m])", E - 3600, E, 2),
      range("max_over_time(x[30m])", E - 3600, E, 7),
      range(R"(quantile_over_time(0.5, x{i="0"}[1h]))", E - 3600, E, 10),
      range(R"(predict_linear(x{i="1"}[10m], 60))", E - 3600, E, 5),
      range(R"(absent_over_time(x{i="0"}[1h]))", E - 3600, E, 10),
      range("absent_over_time(nonexistent[1h])", E - 3600, E, 1),
      // Instant selectors, operators, aggregations, functions (rangeEval).
      range("x", E - 3600, E, 1),
      range("x", E - 3600, E, 2),
      range("x + x", E - 3600, E, 3),
      range("x + x", E - 3600, E, 4),
      range("x * 2", E - 3600, E, 2),
      range("x * 2", E - 3600, E, 3),
      range(R"(-x{i="0"})", E - 3600, E, 1),
      range("sum(x)", E - 3600, E, 1),
      range("sum(x)", E - 3600, E, 2),
      range("sum by (i) (z)", E - 5 * 3600, E, 300),
      range("sum by (i) (z)", E - 5 * 3600, E, 600),
      range(R"(count_values("v", z))", E - 5 * 3600, E, 300),
      range("topk(3, z)", E - 5 * 3600, E, 600),
      range("quantile(0.9, z)", E - 5 * 3600, E, 300),
      range(R"q(label_replace(x, "a", "$1", "i", "(.*)"))q", E - 3600, E, 2),
      range(R"q(label_replace(x, "a", "$1", "i", "(.*)"))q", E - 3600, E, 3),
      range(R"(scalar(x{i="0"}))", E - 3600, E, 1),
      range("absent(nonexistent)", E - 3600, E, 1),
      range("sort_desc(x)", E - 3600, E, 3),
      range(R"(clamp(x{i="2"}, 10, 20))", E - 3600, E, 1),
      range("timestamp(x)", E - 3600, E, 2),
      range("timestamp(x)", E - 3600, E, 3),
      range(R"(timestamp(x{i="0"}))", E - 2 * 3600, E, 1),
      range("1", E - 3 * 3600, E, 1),
      range("time()", E - 3 * 3600, E, 1),
      range("hour()", E - 3 * 3600, E, 1),
      // Step-invariant expressions: evaluated once, each repetition counted.
      range("vector(1)", E - 2 * 3600, E, 1),
      range("1 + 1", E - 2 * 3600, E, 1),
      range("x @ " + std::to_string(E), E - 2 * 3600, E, 1),
      range(R"(x{i="0"} @ )" + std::to_string(E), E - 2 * 3600, E, 1),
      range("sum(x @ " + std::to_string(E) + ")", E - 2 * 3600, E, 1),
      range("rate(x[5m] @ " + std::to_string(E) + ")", E - 3600, E, 1),
      range(R"(rate(x{i="0"}[5m] @ )" + std::to_string(E) + ")", E - 3600, E, 1),
      range(R"(x{i="0"} - x{i="1"} @ )" + std::to_string(E), E - 3600, E, 1),
      // Range vectors as results, and subqueries.
      inst("x[1h]", E),
      inst("x[3332s]", E),
      inst(R"(x{i="0"}[2h])", E),
      inst(R"(x{i="0"}[2h:1s])", E),
      inst("x[2h:2s]", E),
      inst(R"(max_over_time(x{i="0"}[2h:1s]))", E),
      inst(R"(max_over_time(x{i="0"}[1h:1s]))", E),
      inst(R"(sum_over_time(rate(x{i="0"}[1m])[30m:10s]))", E),
      range(R"(sum_over_time(rate(x{i="0"}[1m])[30m:10s]))", E - 3600, E, 60),
      range("max_over_time(sum(x)[1h:10s])", E - 3600, E, 60),
      range("max_over_time(sum(x)[1h:1s])", E - 3600, E, 60),
      range("max_over_time((vector(1))[1h:1s])", E - 3600, E, 60),
  };
  int ok = 0, failed = 0;
  for (const auto& c : cases) {
    EngineOptions o;
    o.max_samples = kMaxSamples;
    Engine e(head_, o);
    Outcome want = ask_prometheus(c);
    Outcome got = ask_llmon(e, c);
    (want.ok ? ok : failed)++;
    EXPECT_EQ(got.text(), want.text()) << describe(c);
    if (std::getenv("LLMON_DIFF_VERBOSE")) std::printf("%-70s %s\n", describe(c).c_str(), want.text().c_str());
  }
  // The table must exercise both verdicts.
  EXPECT_GT(ok, 10);
  EXPECT_GT(failed, 10);
}

}  // namespace
}  // namespace llmon::promql
