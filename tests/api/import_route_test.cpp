// POST /api/v1/import/prometheus end to end: a real http::Server on
// 127.0.0.1:0 with the route registered over a tsdb::Head, driven by the raw
// socket client of tests/support; plain and gzip bodies, VictoriaMetrics'
// query args, the 400/405/413/503 answers and the route's counters.
#include "api/import_route.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "http/metrics_page.h"
#include "support/http_client.h"
#include "tsdb/head.h"

namespace llmon::api {
namespace {

using llmon::testing::http_raw;
using llmon::testing::http_request;
using llmon::testing::HttpResult;

std::string post(const std::string& target, const std::string& body, const std::vector<std::string>& headers = {}) {
  std::string raw = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& h : headers) raw += h + "\r\n";
  return raw + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::vector<std::pair<model::Labels, std::vector<model::Sample>>> select(storage::Storage& st,
                                                                         const std::string& name) {
  auto q = st.querier(INT64_MIN / 2, INT64_MAX / 2);
  EXPECT_TRUE(q.has_value()) << q.error();
  std::vector<std::pair<model::Labels, std::vector<model::Sample>>> out;
  auto set = (*q)->select(INT64_MIN / 2, INT64_MAX / 2, {{model::Matcher::Type::kEq, "__name__", name}});
  while (set->next()) {
    std::vector<model::Sample> samples;
    auto it = set->at().iterator();
    while (it->next()) samples.push_back(it->at());
    out.emplace_back(set->at().labels(), std::move(samples));
  }
  return out;
}

class ImportRouteTest : public ::testing::Test {
 protected:
  void start(ImportRouteOptions ro = {}, storage::Storage* st = nullptr) {
    http::ServerOptions opts;
    opts.listen_address = "127.0.0.1:0";
    server_ = std::make_unique<http::Server>(opts, page_, log_);
    auto r = register_import_route(*server_, st ? *st : head_, clock_, log_, std::move(ro));
    ASSERT_TRUE(r.has_value()) << r.error();
    route_ = *r;
    Status s = server_->start();
    ASSERT_TRUE(s.is_ok()) << s.message();
    port_ = server_->port();
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  HttpResult send(const std::string& target, const std::string& body, const std::vector<std::string>& headers = {}) {
    return http_raw(port_, post(target, body, headers), false, 10000);
  }

  base::Logger log_{base::LogLevel::kError};
  base::ManualClock clock_{1'700'000'000'000};
  tsdb::Head head_;
  http::MetricsPage page_{[] { return model::SnapshotPtr(); }};
  std::unique_ptr<http::Server> server_;
  std::shared_ptr<ImportRoute> route_;
  int port_ = 0;
};

TEST_F(ImportRouteTest, PlainBodyIs204AndStored) {
  start();
  HttpResult r = send("/api/v1/import/prometheus",
                      "# TYPE up gauge\nup{job=\"a\"} 1 1000\nup{job=\"a\"} 0 2000\nup{job=\"b\"} 1\n");
  ASSERT_EQ(r.status, 204) << r.error << " " << r.status_line << " " << r.body;
  EXPECT_TRUE(r.body.empty());
  EXPECT_NE(r.header("x-llmon-import").find("accepted=3"), std::string::npos) << r.header("x-llmon-import");
  auto got = select(head_, "up");
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(got[0].second.size(), 2u);
  EXPECT_EQ(got[0].second[1].t_ms, 2000);
  ASSERT_EQ(got[1].second.size(), 1u);
  EXPECT_EQ(got[1].second[0].t_ms, 1'700'000'000'000) << "no timestamp: the clock's now";
  ImportRouteStats s = route_->stats();
  EXPECT_EQ(s.requests_ok, 1u);
  EXPECT_EQ(s.samples_accepted, 3u);
  EXPECT_EQ(s.requests_invalid, 0u);
}

TEST_F(ImportRouteTest, GzipBodyIsDecoded) {
  start();
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text +=
        "gz_metric{i=\"" + std::to_string(i % 10) + "\"} " + std::to_string(i) + " " + std::to_string(1000 + i) + "\n";
  std::string z = http::gzip_compress(text, 6);
  ASSERT_LT(z.size(), text.size());
  HttpResult r = send("/api/v1/import/prometheus", z, {"Content-Encoding: gzip"});
  ASSERT_EQ(r.status, 204) << r.error << " " << r.body;
  auto got = select(head_, "gz_metric");
  ASSERT_EQ(got.size(), 10u);
  size_t n = 0;
  for (const auto& g : got) n += g.second.size();
  EXPECT_EQ(n, 2000u);
  EXPECT_EQ(route_->stats().body_bytes, z.size());
  // Upper-case encoding names are the same encoding.
  HttpResult r2 = send("/api/v1/import/prometheus", http::gzip_compress("gz_two 1 5\n"), {"Content-Encoding: GZIP"});
  EXPECT_EQ(r2.status, 204) << r2.body;
}

TEST_F(ImportRouteTest, ExtraLabelAndTimestampQueryArgs) {
  start();
  HttpResult r = send("/api/v1/import/prometheus?extra_label=job=backfill&extra_label=dc%3Deu+west&timestamp=5000",
                      "q{job=\"orig\"} 1\nq{job=\"orig\"} 2 9000\n");
  ASSERT_EQ(r.status, 204) << r.body;
  auto got = select(head_, "q");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first.get("job"), "backfill");
  EXPECT_EQ(got[0].first.get("dc"), "eu west");
  ASSERT_EQ(got[0].second.size(), 2u);
  EXPECT_EQ(got[0].second[0].t_ms, 5000) << "timestamp= sets the time of lines without one";
  EXPECT_EQ(got[0].second[1].t_ms, 9000);
  // timestamp <= 0 means now, as in VictoriaMetrics.
  ASSERT_EQ(send("/api/v1/import/prometheus?timestamp=0", "q0 1\n").status, 204);
  EXPECT_EQ(select(head_, "q0").at(0).second.at(0).t_ms, 1'700'000'000'000);
}

TEST_F(ImportRouteTest, BadRequestsAre400WithAReason) {
  start();
  struct Case {
    std::string target;
    std::string body;
    std::vector<std::string> headers;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"/api/v1/import/prometheus?extra_label=novalue", "a 1\n", {}, "name=value"},
      {"/api/v1/import/prometheus?extra_label=9bad=x", "a 1\n", {}, "not a valid label name"},
      {"/api/v1/import/prometheus?timestamp=soon", "a 1\n", {}, "timestamp=soon"},
      {"/api/v1/import/prometheus?x=%zz", "a 1\n", {}, "%-escape"},
      {"/api/v1/import/prometheus", "not gzip at all", {"Content-Encoding: gzip"}, "cannot decode the gzip body"},
      {"/api/v1/import/prometheus", "a 1\n", {"Content-Encoding: br"}, "unsupported Content-Encoding \"br\""},
      {"/api/v1/import/prometheus", "# only\nbad line\nworse{ 1\n", {}, "line 2, column 5"},
  };
  for (const Case& c : cases) {
    HttpResult r = send(c.target, c.body, c.headers);
    EXPECT_EQ(r.status, 400) << c.target << ": " << r.status_line << " " << r.body;
    EXPECT_NE(r.body.find(c.expect), std::string::npos) << c.target << ": " << r.body;
  }
  HttpResult all_bad = send("/api/v1/import/prometheus", "# only\nbad line\nworse{ 1\n");
  EXPECT_NE(all_bad.body.find("line 3, column 8"), std::string::npos) << all_bad.body;
  EXPECT_NE(all_bad.body.find("2 invalid line(s)"), std::string::npos) << all_bad.body;
  ImportRouteStats s = route_->stats();
  EXPECT_EQ(s.requests_invalid, cases.size() + 1);
  EXPECT_EQ(s.requests_ok, 0u);
  EXPECT_EQ(s.invalid_lines, 4u);
  EXPECT_EQ(head_.num_series(), 0u);
}

TEST_F(ImportRouteTest, SomeBadLinesStill204AndCounted) {
  start();
  HttpResult r = send("/api/v1/import/prometheus", "ok 1 1000\nbad line\nok 2 2000\nok 0 500\n");
  ASSERT_EQ(r.status, 204) << r.body;
  EXPECT_NE(r.header("x-llmon-import").find("invalid_lines=1"), std::string::npos) << r.header("x-llmon-import");
  // A second request older than what is stored: out of order, counted, still 204.
  HttpResult r2 = send("/api/v1/import/prometheus", "ok 9 1500\nok 3 3000\n");
  ASSERT_EQ(r2.status, 204) << r2.body;
  EXPECT_NE(r2.header("x-llmon-import").find("out_of_order=1"), std::string::npos) << r2.header("x-llmon-import");
  ImportRouteStats s = route_->stats();
  EXPECT_EQ(s.requests_ok, 2u);
  EXPECT_EQ(s.invalid_lines, 1u);
  EXPECT_EQ(s.samples_accepted, 4u);
  EXPECT_EQ(s.rejected_out_of_order, 1u);
  EXPECT_EQ(select(head_, "ok").at(0).second.size(), 4u);
}

TEST_F(ImportRouteTest, EmptyBodyIs204) {
  start();
  HttpResult r = send("/api/v1/import/prometheus", "");
  EXPECT_EQ(r.status, 204) << r.body;
}

TEST_F(ImportRouteTest, OtherMethodsAre405) {
  start();
  HttpResult r = http_request(port_, "GET", "/api/v1/import/prometheus");
  EXPECT_EQ(r.status, 405) << r.error;
  EXPECT_EQ(r.header("allow"), "POST");
}

TEST_F(ImportRouteTest, BodyAndDecodedLimits) {
  ImportRouteOptions o;
  o.max_body_bytes = 4096;
  o.max_decoded_bytes = 8192;
  start(o);
  std::string text;
  while (text.size() < 5000) text += "lim 1 " + std::to_string(1000 + text.size()) + "\n";
  // Refused from Content-Length alone: the body need not even be sent.
  HttpResult big = http_raw(port_,
                            "POST /api/v1/import/prometheus HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                            "Content-Length: " +
                                std::to_string(text.size()) + "\r\n\r\n");
  EXPECT_EQ(big.status, 413) << big.status_line << " " << big.body;
  // Gzipped it fits the body limit and decodes within 8 KiB.
  HttpResult gz = send("/api/v1/import/prometheus", http::gzip_compress(text, 9), {"Content-Encoding: gzip"});
  EXPECT_EQ(gz.status, 204) << gz.body;
  // A zip bomb: 2 MiB of zeros is ~2 KB gzipped, far over the decoded limit.
  std::string bomb = http::gzip_compress(std::string(2u << 20, '\0'), 9);
  ASSERT_LT(bomb.size(), 4096u);
  HttpResult b = send("/api/v1/import/prometheus", bomb, {"Content-Encoding: gzip"});
  EXPECT_EQ(b.status, 400) << b.body;
  EXPECT_NE(b.body.find("exceeds the limit of 8192 bytes"), std::string::npos) << b.body;
}

// A Storage whose first appender() waits until released, to hold an import open.
class GateStorage final : public storage::Storage {
 public:
  explicit GateStorage(storage::Storage& inner) : inner_(inner) {}
  std::unique_ptr<storage::Appender> appender() override {
    std::unique_lock lock(mu_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
    return inner_.appender();
  }
  Expected<std::unique_ptr<storage::Querier>> querier(int64_t mint, int64_t maxt) override {
    return inner_.querier(mint, maxt);
  }
  void wait_entered() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return entered_; });
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  storage::Storage& inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false, open_ = false;
};

TEST_F(ImportRouteTest, TooManyConcurrentImportsAre503) {
  GateStorage gate(head_);
  ImportRouteOptions o;
  o.max_concurrent = 1;
  start(o, &gate);
  auto first = std::async(std::launch::async, [&] { return send("/api/v1/import/prometheus", "held 1 1000\n"); });
  gate.wait_entered();
  HttpResult busy = send("/api/v1/import/prometheus", "other 1 1000\n");
  EXPECT_EQ(busy.status, 503) << busy.body;
  EXPECT_EQ(busy.header("retry-after"), "1");
  gate.open();
  HttpResult r = first.get();
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_EQ(route_->stats().requests_busy, 1u);
  // Free again.
  EXPECT_EQ(send("/api/v1/import/prometheus", "other 1 1000\n").status, 204);
}

TEST(ImportRouteRegistration, PathAlreadyTakenIsAnError) {
  base::Logger log{base::LogLevel::kError};
  base::ManualClock clock;
  tsdb::Head head;
  http::MetricsPage page{[] { return model::SnapshotPtr(); }};
  http::ServerOptions opts;
  http::Server server(opts, page, log);
  ASSERT_TRUE(register_import_route(server, head, clock, log).has_value());
  auto again = register_import_route(server, head, clock, log);
  ASSERT_FALSE(again.has_value());
  EXPECT_NE(again.error().find("/api/v1/import/prometheus"), std::string::npos) << again.error();
}

TEST(ParseQuery, DecodesPairsInOrder) {
  auto q = parse_query("a=1&extra_label=job%3Dx&extra_label=b=c+d&&flag&e=%41%2b");
  ASSERT_TRUE(q.has_value()) << q.error();
  std::vector<std::pair<std::string, std::string>> want = {
      {"a", "1"}, {"extra_label", "job=x"}, {"extra_label", "b=c d"}, {"flag", ""}, {"e", "A+"}};
  EXPECT_EQ(*q, want);
  EXPECT_TRUE(parse_query("").has_value());
  for (const char* bad : {"a=%", "a=%4", "a=%g1", "%zz=1"}) EXPECT_FALSE(parse_query(bad).has_value()) << bad;
}

}  // namespace
}  // namespace llmon::api
