// The Prometheus HTTP query API end to end: a real http::Server on
// 127.0.0.1:0 with the routes registered over a tsdb::Db in a temp dir
// (filled through its appender) and a promql::Engine, driven by the raw socket
// client of tests/support. The data are the ones a Prometheus 2.42 was loaded
// with (promtool tsdb create-blocks-from openmetrics) when the expected bodies
// below were copied from its answers: envelopes, JSON bytes, error texts and
// status codes, GET and form POST.
#include "api/query_api.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <limits>

#include "http/metrics_page.h"
#include "support/http_client.h"
#include "tsdb/db.h"

namespace llmon::api {
namespace {

using llmon::testing::http_raw;
using llmon::testing::http_request;
using llmon::testing::HttpResult;

model::Labels labels(std::vector<model::Label> pairs) {
  auto l = model::Labels::make(std::move(pairs));
  EXPECT_TRUE(l.has_value()) << l.error();
  return l ? *l : model::Labels();
}

std::string post_request(const std::string& target, const std::string& body,
                         const std::string& content_type = "application/x-www-form-urlencoded") {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Prometheus's answers for the data below.
constexpr const char* kUpAt1010 =
    R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"a:9100","job":"node"},"value":[1010,"1"]},{"metric":{"__name__":"up","instance":"b:9400","job":"gpu"},"value":[1010,"1e-07"]}]}})";
constexpr const char* kFooRange =
    R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"foo_total","job":"node"},"values":[[1000,"10"],[1015,"25"],[1030,"+Inf"]]}]}})";
constexpr const char* kUpSeries =
    R"({"status":"success","data":[{"__name__":"up","instance":"a:9100","job":"node"},{"__name__":"up","instance":"b:9400","job":"gpu"}]})";

class QueryApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/query_api_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    tsdb::DbOptions o;
    o.path = dir_ + "/data";
    o.background = false;
    o.min_free_bytes = 0;
    o.retention_ms = std::numeric_limits<int64_t>::max() / 4;
    auto db = tsdb::Db::open(o, log_, clock_);
    ASSERT_TRUE(db.has_value()) << db.error();
    db_ = std::move(*db);
    const double inf = std::numeric_limits<double>::infinity();
    auto app = db_->appender();
    auto add = [&](const model::Labels& l, int64_t t_s, double v) {
      auto r = app->append(0, l, t_s * 1000, v);
      ASSERT_TRUE(r.has_value()) << r.error();
    };
    auto up_a = labels({{"__name__", "up"}, {"job", "node"}, {"instance", "a:9100"}});
    auto up_b = labels({{"__name__", "up"}, {"job", "gpu"}, {"instance", "b:9400"}});
    auto foo = labels({{"__name__", "foo_total"}, {"job", "node"}});
    add(up_a, 1000, 1);
    add(up_b, 1000, 1e-7);
    add(up_b, 1015, 1e22);
    add(foo, 1000, 10);
    add(foo, 1015, 25);
    add(foo, 1030, inf);
    ASSERT_TRUE(app->commit().is_ok());
    engine_ = std::make_unique<promql::Engine>(*db_, promql::EngineOptions{});
  }

  void TearDown() override {
    if (server_) server_->stop();
    server_.reset();
    engine_.reset();
    if (db_) (void)db_->close();
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Starts the server; with_store=false: no storage/engine (unavailable).
  void start(bool with_store = true) {
    http::ServerOptions opts;
    opts.listen_address = "127.0.0.1:0";
    server_ = std::make_unique<http::Server>(opts, page_, log_);
    QueryApiOptions qo;
    qo.version = "9.8.7";
    qo.flags = [] {
      return std::map<std::string, std::string>{{"collect.interval", "1s"}, {"storage.self.job", "a\"b"}};
    };
    auto api = std::make_shared<QueryApi>(
        with_store ? db_.get() : nullptr, with_store ? engine_.get() : nullptr, [this] { return snapshot_; }, clock_,
        qo);
    Status s = register_query_api(*server_, api);
    ASSERT_TRUE(s.is_ok()) << s.message();
    s = server_->start();
    ASSERT_TRUE(s.is_ok()) << s.message();
    port_ = server_->port();
  }

  HttpResult get(const std::string& target) { return http_request(port_, "GET", target, {}, 10000); }
  HttpResult post(const std::string& target, const std::string& body) {
    return http_raw(port_, post_request(target, body), false, 10000);
  }
  // Status and body, e.g. `400 {"status":"error",...}`.
  static std::string sb(const HttpResult& r) { return std::to_string(r.status) + " " + r.body; }

  std::string dir_;
  base::Logger log_{base::LogLevel::kError};
  base::ManualClock clock_{1'010'000};  // the default `time`
  std::unique_ptr<tsdb::Db> db_;
  std::unique_ptr<promql::Engine> engine_;
  model::SnapshotPtr snapshot_;
  http::MetricsPage page_{[] { return model::SnapshotPtr(); }};
  std::unique_ptr<http::Server> server_;
  int port_ = 0;
};

TEST_F(QueryApiTest, GrafanaSaveAndTestOverPostAndGet) {
  start();
  const std::string want = R"({"status":"success","data":{"resultType":"scalar","result":[4,"2"]}})";
  HttpResult p = post("/api/v1/query", "query=1%2B1&time=4");
  EXPECT_EQ(sb(p), "200 " + want);
  EXPECT_EQ(p.header("content-type"), "application/json");
  EXPECT_EQ(sb(get("/api/v1/query?query=1%2B1&time=4")), "200 " + want);

  HttpResult b = get("/api/v1/status/buildinfo");
  EXPECT_EQ(b.status, 200);
  EXPECT_EQ(b.body,
            R"({"status":"success","data":{"version":"9.8.7","revision":"unknown","branch":"unknown",)"
            R"json("buildUser":"unknown","buildDate":"unknown","goVersion":"none (llmon is written in C++)"}})json");
  EXPECT_EQ(b.body.find("features"), std::string::npos) << "a `features` field makes Grafana think this is Mimir";
}

TEST_F(QueryApiTest, FlagsAsPrometheusAnswersThem) {
  start();
  EXPECT_EQ(sb(get("/api/v1/status/flags")),
            R"(200 {"status":"success","data":{"collect.interval":"1s","storage.self.job":"a\"b"}})");
  EXPECT_EQ(get("/api/v1/status/flags?x=1").status, 200);
}

TEST_F(QueryApiTest, InstantAndRangeQueriesMatchPrometheusBytes) {
  start();
  EXPECT_EQ(sb(get("/api/v1/query?query=up&time=1010")), std::string("200 ") + kUpAt1010);
  EXPECT_EQ(sb(get("/api/v1/query?query=up")), std::string("200 ") + kUpAt1010) << "time defaults to now";
  EXPECT_EQ(sb(post("/api/v1/query", "query=up&time=1010")), std::string("200 ") + kUpAt1010);
  // The body's values come before the URL's, as in Go.
  EXPECT_EQ(sb(post("/api/v1/query?query=foo&time=5", "query=up&time=1010")), std::string("200 ") + kUpAt1010);
  EXPECT_EQ(
      sb(get("/api/v1/query?query=up&time=1015")),
      R"(200 {"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"a:9100","job":"node"},"value":[1015,"1"]},{"metric":{"__name__":"up","instance":"b:9400","job":"gpu"},"value":[1015,"1e+22"]}]}})");
  EXPECT_EQ(
      sb(get("/api/v1/query?query=foo_total&time=1030.5")),
      R"(200 {"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"foo_total","job":"node"},"value":[1030.500,"+Inf"]}]}})");
  EXPECT_EQ(sb(get("/api/v1/query?query=%22abc%22&time=4")),
            R"(200 {"status":"success","data":{"resultType":"string","result":[4,"abc"]}})");
  EXPECT_EQ(
      sb(get("/api/v1/query?query=up%5B5m%5D&time=1010")),
      R"(200 {"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up","instance":"a:9100","job":"node"},"values":[[1000,"1"]]},{"metric":{"__name__":"up","instance":"b:9400","job":"gpu"},"values":[[1000,"1e-07"]]}]}})");
  EXPECT_EQ(
      sb(get("/api/v1/query?query=vector(1)&time=2023-01-01T00:00:00.5Z")),
      R"(200 {"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1672531200.500,"1"]}]}})");

  EXPECT_EQ(sb(get("/api/v1/query_range?query=foo_total&start=1000&end=1030&step=15")),
            std::string("200 ") + kFooRange);
  EXPECT_EQ(sb(post("/api/v1/query_range", "query=foo_total&start=1000&end=1030&step=15")),
            std::string("200 ") + kFooRange);
  EXPECT_EQ(sb(post("/api/v1/query_range", "query=foo_total&start=1000.000&end=1030&step=15s")),
            std::string("200 ") + kFooRange);
  EXPECT_EQ(
      sb(get("/api/v1/query_range?query=1&start=1&end=20&step=10")),
      R"(200 {"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[11,"1"]]}]}})");
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&start=1&end=20&step=1m")),
            R"(200 {"status":"success","data":{"resultType":"matrix","result":[]}})");
}

TEST_F(QueryApiTest, QueryErrorsHavePrometheusTextsAndCodes) {
  start();
  auto err = [](const std::string& type, const std::string& msg) {
    return R"({"status":"error","errorType":")" + type + R"(","error":")" + msg + R"("})";
  };
  EXPECT_EQ(sb(get("/api/v1/query?query=up%2B&time=4")),
            "400 " + err("bad_data", R"(invalid parameter \"query\": 1:4: parse error: unexpected end of input)"));
  EXPECT_EQ(sb(get("/api/v1/query?time=4")),
            "400 " + err("bad_data", R"(invalid parameter \"query\": 1:1: parse error: no expression found in input)"));
  EXPECT_EQ(
      sb(get("/api/v1/query?query=up&time=abc")),
      "400 " +
          err("bad_data",
              R"(invalid parameter \"time\": Invalid time value for 'time': cannot parse \"abc\" to a valid timestamp)"));
  EXPECT_EQ(sb(get("/api/v1/query?query=up&timeout=abc")),
            "400 " + err("bad_data", R"(invalid parameter \"timeout\": cannot parse \"abc\" to a valid duration)"));
  EXPECT_EQ(
      sb(get("/api/v1/query?query=rate(up)&time=4")),
      "400 " +
          err("bad_data",
              R"(invalid parameter \"query\": 1:6: parse error: expected type range vector in call to function \"rate\", got instant vector)"));
  EXPECT_EQ(
      sb(get("/api/v1/query?query=up&lookback_delta=abc")),
      "400 " + err("bad_data", R"(error parsing lookback delta duration: cannot parse \"abc\" to a valid duration)"));
  EXPECT_EQ(sb(get("/api/v1/query?query=up&limit=-1")),
            "400 " + err("bad_data", R"(invalid parameter \"limit\": limit must be non-negative)"));

  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&start=1&end=0&step=1")),
            "400 " + err("bad_data", R"(invalid parameter \"end\": end timestamp must not be before start time)"));
  EXPECT_EQ(
      sb(get("/api/v1/query_range?query=up&start=1&end=2&step=0")),
      "400 " +
          err("bad_data",
              R"(invalid parameter \"step\": zero or negative query resolution step widths are not accepted. Try a positive integer)"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&start=0&end=20000&step=1")),
            "400 " + err("bad_data",
                         "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query "
                         "resolution (?step=XX)"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&start=a&end=2&step=1")),
            "400 " + err("bad_data", R"(invalid parameter \"start\": cannot parse \"a\" to a valid timestamp)"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&start=1&end=2&step=x")),
            "400 " + err("bad_data", R"(invalid parameter \"step\": cannot parse \"x\" to a valid duration)"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&start=1&end=2")),
            "400 " + err("bad_data", R"(invalid parameter \"step\": cannot parse \"\" to a valid duration)"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up&end=2&step=1")),
            "400 " + err("bad_data", R"(invalid parameter \"start\": cannot parse \"\" to a valid timestamp)"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=up%2B&start=1&end=2&step=1")),
            "400 " + err("bad_data", "1:4: parse error: unexpected end of input"));
  EXPECT_EQ(sb(get("/api/v1/query_range?query=%22a%22&start=1&end=20&step=10")),
            "400 " + err("bad_data",
                         R"(invalid expression type \"string\" for range query, must be Scalar or instant Vector)"));

  EXPECT_EQ(sb(post("/api/v1/query", "query=up%2&time=1010")),
            "400 " + err("bad_data", R"(error parsing form values: invalid URL escape \"%2\")"));
  EXPECT_EQ(get("/api/v1/query?query=up&stats=all&time=1010").status, 200) << "unknown parameters are ignored";
}

TEST_F(QueryApiTest, ExecutionAndTimeoutErrors) {
  start();
  // Two series end up with the same labels: an evaluation error, 422.
  HttpResult dup =
      get("/api/v1/query?time=1010&query=" +
          std::string(
              "label_replace(label_replace(up,%22job%22,%22x%22,%22%22,%22%22),%22instance%22,%22y%22,%22%22,%22%22)"));
  EXPECT_EQ(dup.status, 422) << dup.body;
  EXPECT_NE(dup.body.find(R"("errorType":"execution")"), std::string::npos) << dup.body;
  // A timeout already over: Prometheus answers 503 timeout.
  HttpResult to = get("/api/v1/query?query=up&time=1010&timeout=-1");
  EXPECT_EQ(to.status, 503) << to.body;
  EXPECT_NE(to.body.find(R"("errorType":"timeout")"), std::string::npos) << to.body;
}

TEST_F(QueryApiTest, LimitTruncatesWithAWarning) {
  start();
  EXPECT_EQ(
      sb(get("/api/v1/query?query=up&time=1010&limit=1")),
      R"(200 {"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"a:9100","job":"node"},"value":[1010,"1"]}]},"warnings":["results truncated due to limit"]})");
  EXPECT_EQ(sb(get("/api/v1/query?query=up&time=1010&limit=2")), std::string("200 ") + kUpAt1010);
  EXPECT_EQ(sb(get("/api/v1/query?query=up&time=1010&limit=0")), std::string("200 ") + kUpAt1010);
  HttpResult r = get("/api/v1/query_range?query=up&start=1000&end=1015&step=15&limit=1");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find(R"(,"warnings":["results truncated due to limit"]})"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("b:9400"), std::string::npos) << r.body;

  EXPECT_EQ(
      sb(get("/api/v1/series?match[]=up&limit=1")),
      R"(200 {"status":"success","data":[{"__name__":"up","instance":"a:9100","job":"node"}],"warnings":["results truncated due to limit"]})");
  EXPECT_EQ(sb(get("/api/v1/series?match[]=up&limit=2")), std::string("200 ") + kUpSeries);
  EXPECT_EQ(sb(get("/api/v1/labels?limit=2")),
            R"(200 {"status":"success","data":["__name__","instance"],"warnings":["results truncated due to limit"]})");
  EXPECT_EQ(sb(get("/api/v1/label/job/values?limit=1")),
            R"(200 {"status":"success","data":["gpu"],"warnings":["results truncated due to limit"]})");
  EXPECT_EQ(get("/api/v1/labels?limit=x").status, 400);
}

TEST_F(QueryApiTest, SeriesAndLabels) {
  start();
  EXPECT_EQ(sb(get("/api/v1/series?match[]=up")), std::string("200 ") + kUpSeries);
  EXPECT_EQ(
      sb(get("/api/v1/series?match%5B%5D=up&match%5B%5D=foo_total&start=0&end=2000")),
      R"(200 {"status":"success","data":[{"__name__":"foo_total","job":"node"},{"__name__":"up","instance":"a:9100","job":"node"},{"__name__":"up","instance":"b:9400","job":"gpu"}]})");
  EXPECT_EQ(
      sb(post("/api/v1/series", "match[]=up&match[]=%7Bjob%3D%22node%22%7D")),
      R"(200 {"status":"success","data":[{"__name__":"foo_total","job":"node"},{"__name__":"up","instance":"a:9100","job":"node"},{"__name__":"up","instance":"b:9400","job":"gpu"}]})");
  EXPECT_EQ(sb(get("/api/v1/series?match[]=up&start=1016")), R"(200 {"status":"success","data":[]})");
  EXPECT_EQ(sb(get("/api/v1/series?match[]=up&start=2000&end=1000")), R"(200 {"status":"success","data":[]})");
  EXPECT_EQ(sb(get("/api/v1/series?match[]={job=~%22n.*%22}&start=2023-01-01T00:00:00Z")),
            R"(200 {"status":"success","data":[]})");
  EXPECT_EQ(sb(get("/api/v1/series")),
            R"(400 {"status":"error","errorType":"bad_data","error":"no match[] parameter provided"})");
  const std::string non_empty =
      R"(400 {"status":"error","errorType":"bad_data","error":"invalid parameter \"match[]\": match[] must contain at least one non-empty matcher"})";
  EXPECT_EQ(sb(get("/api/v1/series?match[]={}")), non_empty);
  EXPECT_EQ(sb(get("/api/v1/series?match[]={a=~%22.*%22}")), non_empty);
  EXPECT_EQ(
      sb(get("/api/v1/series?match[]=up+1")),
      R"(400 {"status":"error","errorType":"bad_data","error":"invalid parameter \"match[]\": 1:4: parse error: unexpected number \"1\""})");
  EXPECT_EQ(
      sb(get("/api/v1/series?match[]=up%2B1")),
      R"(400 {"status":"error","errorType":"bad_data","error":"invalid parameter \"match[]\": 1:3: parse error: unexpected \u003cop:+\u003e"})");
  EXPECT_EQ(
      sb(get("/api/v1/series?match[]=up&start=x")),
      R"(400 {"status":"error","errorType":"bad_data","error":"invalid parameter \"start\": Invalid time value for 'start': cannot parse \"x\" to a valid timestamp"})");

  EXPECT_EQ(sb(get("/api/v1/labels")), R"(200 {"status":"success","data":["__name__","instance","job"]})");
  EXPECT_EQ(sb(post("/api/v1/labels", "")), R"(200 {"status":"success","data":["__name__","instance","job"]})");
  EXPECT_EQ(sb(get("/api/v1/labels?match[]=foo_total")), R"(200 {"status":"success","data":["__name__","job"]})");
  EXPECT_EQ(sb(get("/api/v1/labels?match[]=%20")),
            R"(400 {"status":"error","errorType":"bad_data","error":"1:2: parse error: unexpected end of input"})");
  EXPECT_EQ(sb(get("/api/v1/labels?start=5000")), R"(200 {"status":"success","data":[]})");

  EXPECT_EQ(sb(get("/api/v1/label/job/values")), R"(200 {"status":"success","data":["gpu","node"]})");
  EXPECT_EQ(sb(get("/api/v1/label/__name__/values")), R"(200 {"status":"success","data":["foo_total","up"]})");
  EXPECT_EQ(sb(get("/api/v1/label/job/values?match[]=up")), R"(200 {"status":"success","data":["gpu","node"]})");
  EXPECT_EQ(sb(get("/api/v1/label/job/values?match[]=foo_total&start=900&end=1100")),
            R"(200 {"status":"success","data":["node"]})");
  EXPECT_EQ(sb(get("/api/v1/label/instance/values?match[]=foo_total")), R"(200 {"status":"success","data":[]})");
  EXPECT_EQ(sb(get("/api/v1/label/nope/values")), R"(200 {"status":"success","data":[]})");
  EXPECT_EQ(sb(get("/api/v1/label/1bad/values")),
            R"(400 {"status":"error","errorType":"bad_data","error":"invalid label name: \"1bad\""})");
  EXPECT_EQ(post("/api/v1/label/job/values", "").status, 405);
  EXPECT_EQ(get("/api/v1/label/job").status, 404);
  EXPECT_EQ(get("/api/v1/label/job/values/x").status, 404);
  EXPECT_EQ(get("/api/v1/label//values").status, 404);
}

TEST_F(QueryApiTest, MetadataFromTheLatestSnapshot) {
  auto snap = std::make_shared<model::Snapshot>();
  auto family = [&](std::string name, std::string help, model::MetricType type) {
    model::Family f;
    f.name = std::move(name);
    f.help = std::move(help);
    f.type = type;
    snap->families.push_back(std::move(f));
  };
  family("node_load1", "1m load average.", model::MetricType::kGauge);
  family("llmon_x_total", "Things <counted>.", model::MetricType::kCounter);
  family("node_load1", "1m load average.", model::MetricType::kGauge);  // a second collector's family of that name
  family("odd", "Untyped.", model::MetricType::kUntyped);
  family("llmon_x_total", "Other help.", model::MetricType::kCounter);
  snap->order = {1, 4, 0, 2, 3};
  start();
  EXPECT_EQ(sb(get("/api/v1/metadata")), R"(200 {"status":"success","data":{}})") << "no cycle yet";
  snapshot_ = snap;
  EXPECT_EQ(
      sb(get("/api/v1/metadata")),
      R"(200 {"status":"success","data":{"llmon_x_total":[{"type":"counter","help":"Things \u003ccounted\u003e.","unit":""},)"
      R"({"type":"counter","help":"Other help.","unit":""}],"node_load1":[{"type":"gauge","help":"1m load average.","unit":""}],)"
      R"("odd":[{"type":"unknown","help":"Untyped.","unit":""}]}})");
  EXPECT_EQ(
      sb(get("/api/v1/metadata?limit=1&limit_per_metric=1")),
      R"(200 {"status":"success","data":{"llmon_x_total":[{"type":"counter","help":"Things \u003ccounted\u003e.","unit":""}]}})");
  EXPECT_EQ(sb(get("/api/v1/metadata?metric=node_load1")),
            R"(200 {"status":"success","data":{"node_load1":[{"type":"gauge","help":"1m load average.","unit":""}]}})");
  EXPECT_EQ(sb(get("/api/v1/metadata?metric=nope")), R"(200 {"status":"success","data":{}})");
  EXPECT_EQ(sb(get("/api/v1/metadata?limit=0")), R"(200 {"status":"success","data":{}})");
  EXPECT_EQ(get("/api/v1/metadata?limit=-1").body.find("odd"), get("/api/v1/metadata").body.find("odd"));
  EXPECT_EQ(sb(get("/api/v1/metadata?limit=x")),
            R"(400 {"status":"error","errorType":"bad_data","error":"limit must be a number"})");
  EXPECT_EQ(sb(get("/api/v1/metadata?limit_per_metric=x")),
            R"(400 {"status":"error","errorType":"bad_data","error":"limit_per_metric must be a number"})");
  EXPECT_EQ(post("/api/v1/metadata", "").status, 405);
}

TEST_F(QueryApiTest, FormatQuery) {
  start();
  EXPECT_EQ(sb(get("/api/v1/format_query?query=sum(rate(x%5B5m%5D))by(job)")),
            R"json(200 {"status":"success","data":"sum by (job) (rate(x[5m]))"})json");
  EXPECT_EQ(sb(post("/api/v1/format_query", "query=foo%7Ba%3D%22%3C%22%7D")),
            R"(200 {"status":"success","data":"foo{a=\"\u003c\"}"})");
  EXPECT_EQ(
      sb(get("/api/v1/format_query?query=up%2B")),
      R"(400 {"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:4: parse error: unexpected end of input"})");
}

TEST_F(QueryApiTest, WithoutAStoreTheStorageEndpointsAreUnavailable) {
  start(/*with_store=*/false);
  for (const char* target : {"/api/v1/query?query=1", "/api/v1/query_range?query=1&start=1&end=2&step=1",
                             "/api/v1/series?match[]=up", "/api/v1/labels", "/api/v1/label/job/values"}) {
    HttpResult r = get(target);
    EXPECT_EQ(r.status, 503) << target;
    EXPECT_EQ(
        r.body,
        R"json({"status":"error","errorType":"unavailable","error":"this endpoint needs the time-series store, which is not running (it failed to open: see the agent's log)"})json")
        << target;
  }
  EXPECT_EQ(get("/api/v1/status/buildinfo").status, 200);
  EXPECT_EQ(get("/api/v1/metadata").status, 200);
  EXPECT_EQ(get("/api/v1/format_query?query=up").status, 200);
}

TEST_F(QueryApiTest, MethodsAndHead) {
  start();
  HttpResult put = http_request(port_, "PUT", "/api/v1/query?query=1", {}, 10000);
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.header("allow"), "GET, HEAD, POST");
  HttpResult head = http_request(port_, "HEAD", "/api/v1/status/buildinfo", {}, 10000);
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(get("/api/v1/nope").status, 404);
  EXPECT_EQ(post("/api/v1/status/buildinfo", "").status, 405);
  // A form body with another Content-Type is not read, as in Go.
  HttpResult json_body =
      http_raw(port_, post_request("/api/v1/query?time=4", "query=1", "application/json"), false, 10000);
  EXPECT_EQ(json_body.status, 400) << json_body.body;
}

}  // namespace
}  // namespace llmon::api
