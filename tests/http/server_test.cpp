// http::Server over real sockets on 127.0.0.1 (port 0), driven by a raw
// POSIX-socket client (tests/support/http_client.h) that shares no code with
// the server. Also: the agent binary exits 0 soon after SIGTERM.
#include "http/server.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include "exposition/text_writer.h"
#include "model/snapshot_builder.h"
#include "support/http_client.h"
#include "support/test_paths.h"

namespace llmon::http {
namespace {

using llmon::testing::http_raw;
using llmon::testing::http_request;
using llmon::testing::HttpResult;

constexpr const char* kTextType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kOmType = "application/openmetrics-text; version=1.0.0; charset=utf-8";
constexpr const char* kPrometheus3Accept =
    "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;"
    "version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,"
    "*/*;q=0.1";

model::SnapshotPtr make_snapshot() {
  auto snap = std::make_shared<model::Snapshot>();
  model::SnapshotBuilder b(*snap, 1'700'000'000'000);
  auto cpu = b.family("node_cpu_seconds_total", "Seconds the CPUs spent in each mode.", model::MetricType::kCounter,
                      {"cpu", "mode"});
  cpu.add({"0", "idle"}, 12345.67);
  cpu.add({"0", "user"}, 89.5);
  b.family("node_load1", "1m load average.", model::MetricType::kGauge).add(0.21);
  b.family("node_hwmon_temp_celsius", "Hardware monitor for temperature (input)", model::MetricType::kGauge,
           {"chip", "sensor"})
      .add({"platform_\"odd\\chip", "temp1"}, std::numeric_limits<double>::quiet_NaN());
  b.finish();
  return snap;
}

std::string page_text(const model::Snapshot& s, exposition::Format f) {
  std::string out;
  exposition::write_page(s, f, out);
  return out;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions opts;
    opts.listen_address = "127.0.0.1:0";
    opts.version = "test";
    server_ = std::make_unique<Server>(opts, page_, log_);
    Status st = server_->start();
    ASSERT_TRUE(st.is_ok()) << st.message();
    port_ = server_->port();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  void publish(model::SnapshotPtr s) {
    std::lock_guard<std::mutex> lock(mu_);
    snap_ = std::move(s);
  }
  HttpResult get(const std::string& target, const std::vector<std::string>& headers = {}) {
    return http_request(port_, "GET", target, headers);
  }
  // The server still answers a plain scrape correctly.
  void expect_still_serving() {
    HttpResult r = get("/metrics");
    EXPECT_EQ(r.status, 200) << r.error;
    EXPECT_EQ(r.body, page_text(*snapshot(), exposition::Format::kText004));
  }
  model::SnapshotPtr snapshot() {
    std::lock_guard<std::mutex> lock(mu_);
    return snap_;
  }

  std::mutex mu_;
  model::SnapshotPtr snap_;
  base::Logger log_{base::LogLevel::kError};
  MetricsPage page_{[this] { return snapshot(); }};
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

class ServingTest : public ServerTest {
 protected:
  void SetUp() override {
    publish(make_snapshot());
    ServerTest::SetUp();
  }
};

TEST_F(ServingTest, MetricsDefaultsToText004) {
  HttpResult r = get("/metrics");
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-type"), kTextType);
  EXPECT_EQ(r.body, page_text(*snapshot(), exposition::Format::kText004));
  EXPECT_NE(r.body.find("node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 12345.67\n"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("node_hwmon_temp_celsius{chip=\"platform_\\\"odd\\\\chip\",sensor=\"temp1\"} NaN\n"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(r.body.find("# EOF"), std::string::npos);
  EXPECT_FALSE(r.has_header("content-encoding"));
}

TEST_F(ServingTest, OpenMetricsByAccept) {
  HttpResult r = get("/metrics", {"Accept: application/openmetrics-text; version=1.0.0"});
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-type"), kOmType);
  EXPECT_EQ(r.body, page_text(*snapshot(), exposition::Format::kOpenMetrics100));
  ASSERT_GE(r.body.size(), 6u);
  EXPECT_EQ(r.body.substr(r.body.size() - 6), "# EOF\n");
  EXPECT_NE(r.body.find("# TYPE node_cpu_seconds counter\n"), std::string::npos) << r.body;
}

TEST_F(ServingTest, Prometheus3AcceptHeaderGetsOpenMetrics) {
  HttpResult r = get("/metrics", {std::string("Accept: ") + kPrometheus3Accept});
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-type"), kOmType);
  EXPECT_EQ(r.body, page_text(*snapshot(), exposition::Format::kOpenMetrics100));
}

TEST_F(ServingTest, JunkAcceptFallsBackToText) {
  for (const char* accept : {"Accept: garbage;;;=,", "Accept: application/json", "Accept: */*",
                             "Accept: application/openmetrics-text; version=9.9.9"}) {
    HttpResult r = get("/metrics", {accept});
    ASSERT_EQ(r.status, 200) << accept << ": " << r.error;
    EXPECT_EQ(r.header("content-type"), kTextType) << accept;
    EXPECT_EQ(r.body, page_text(*snapshot(), exposition::Format::kText004)) << accept;
  }
}

TEST_F(ServingTest, GzipWhenAccepted) {
  HttpResult r = get("/metrics", {"Accept-Encoding: gzip, deflate"});
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-encoding"), "gzip");
  EXPECT_EQ(r.header("content-type"), kTextType);
  std::string plain;
  ASSERT_TRUE(llmon::testing::gunzip(r.body, plain)) << "body is not gzip (" << r.body.size() << " bytes)";
  EXPECT_EQ(plain, page_text(*snapshot(), exposition::Format::kText004));

  HttpResult om = get("/metrics", {"Accept-Encoding: gzip", std::string("Accept: ") + kPrometheus3Accept});
  ASSERT_EQ(om.status, 200) << om.error;
  ASSERT_TRUE(llmon::testing::gunzip(om.body, plain));
  EXPECT_EQ(plain, page_text(*snapshot(), exposition::Format::kOpenMetrics100));

  // gzip;q=0 means "not gzip".
  HttpResult no = get("/metrics", {"Accept-Encoding: gzip;q=0"});
  ASSERT_EQ(no.status, 200) << no.error;
  EXPECT_FALSE(no.has_header("content-encoding"));
  EXPECT_EQ(no.body, page_text(*snapshot(), exposition::Format::kText004));
}

TEST_F(ServingTest, HeadHasHeadersButNoBody) {
  HttpResult r = http_request(port_, "HEAD", "/metrics");
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-type"), kTextType);
  EXPECT_TRUE(r.body.empty());
  if (r.has_header("content-length")) {
    EXPECT_EQ(r.header("content-length"), std::to_string(page_text(*snapshot(), exposition::Format::kText004).size()));
  }
  expect_still_serving();
}

TEST_F(ServingTest, HealthyAndReady) {
  HttpResult h = get("/-/healthy");
  EXPECT_EQ(h.status, 200) << h.error;
  EXPECT_FALSE(h.body.empty());
  HttpResult r = get("/-/ready");
  EXPECT_EQ(r.status, 200) << r.error;
}

TEST_F(ServerTest, NotReadyBeforeFirstSnapshot) {
  HttpResult r = get("/-/ready");
  EXPECT_EQ(r.status, 503) << r.error;
  HttpResult h = get("/-/healthy");
  EXPECT_EQ(h.status, 200) << "healthy means the process serves, even before a snapshot";
  HttpResult m = get("/metrics");
  EXPECT_EQ(m.status, 503) << m.error;

  publish(make_snapshot());
  r = get("/-/ready");
  EXPECT_EQ(r.status, 200) << r.error;
  expect_still_serving();
}

TEST_F(ServingTest, UnknownPathIs404) {
  for (const char* path : {"/nope", "/metrics/extra", "/-/", "/metricsx"}) {
    HttpResult r = get(path);
    EXPECT_EQ(r.status, 404) << path << ": " << r.error;
  }
  expect_still_serving();
}

TEST_F(ServingTest, LandingPageLinksMetrics) {
  HttpResult r = get("/");
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_NE(r.header("content-type").find("text/html"), std::string::npos) << r.header("content-type");
  EXPECT_NE(r.body.find("href=\"/metrics\""), std::string::npos) << r.body;
}

TEST_F(ServingTest, HugeUriIsRefusedAndServerKeepsServing) {
  // Prometheus (Go net/http) takes request heads up to 1 MiB + 4 KiB and
  // answers 431 beyond, long URLs included (it never answers 414).
  std::string target = "/metrics?x=" + std::string(kGoMaxHeadBytes, 'a');
  HttpResult r = http_request(port_, "GET", target, {}, 20000);
  EXPECT_EQ(r.status, 431) << r.error << " " << r.status_line;
  expect_still_serving();
  // 900 KiB of URL is served.
  HttpResult ok = http_request(port_, "GET", "/metrics?x=" + std::string(900 * 1024, 'a'), {}, 20000);
  EXPECT_EQ(ok.status, 200) << ok.error << " " << ok.status_line;
}

TEST_F(ServingTest, HeadLimitIsGosToTheByte) {
  // A head of exactly 1 MiB + 4 KiB, final empty line included, is served;
  // one byte more gets 431 (as `prometheus` answered both).
  auto raw_of_size = [](size_t size) {
    const std::string start = "GET /metrics?x=";
    const std::string end = " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    return start + std::string(size - start.size() - end.size(), 'a') + end;
  };
  HttpResult at = http_raw(port_, raw_of_size(kGoMaxHeadBytes), false, 20000);
  EXPECT_EQ(at.status, 200) << at.error << " " << at.status_line;
  HttpResult over = http_raw(port_, raw_of_size(kGoMaxHeadBytes + 1), false, 20000);
  EXPECT_EQ(over.status, 431) << over.error << " " << over.status_line;
  expect_still_serving();
}

TEST_F(ServingTest, HugeHeaderIsRefusedAndServerKeepsServing) {
  // Go has no limit per header line, only on the whole head: a 9 KB header
  // is served, a 1 MiB + 8 KiB one is refused with 431.
  HttpResult small = get("/metrics", {"X-Big: " + std::string(9 * 1024, 'b')});
  EXPECT_EQ(small.status, 200) << small.error << " " << small.status_line;
  HttpResult r = http_request(port_, "GET", "/metrics", {"X-Big: " + std::string(kGoMaxHeadBytes + 8192, 'b')}, 20000);
  EXPECT_EQ(r.status, 431) << r.error << " " << r.status_line;
  // Many small headers adding up to more than the limit are refused too.
  std::vector<std::string> many;
  for (int i = 0; i < 11000; ++i) many.push_back("X-H" + std::to_string(i) + ": " + std::string(100, 'c'));
  HttpResult r2 = http_request(port_, "GET", "/metrics", many, 20000);
  EXPECT_EQ(r2.status, 431) << r2.error << " " << r2.status_line;
  expect_still_serving();
}

TEST_F(ServingTest, HugePostIsRefusedAndServerKeepsServing) {
  std::string body(5 * 1024 * 1024, 'p');
  std::string raw =
      "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: text/plain\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  HttpResult r = http_raw(port_, raw, false, 10000);
  EXPECT_GE(r.status, 400) << r.error << (r.write_failed ? " (server closed before the whole body)" : "");
  EXPECT_LT(r.status, 500) << r.status_line;
  expect_still_serving();
}

TEST_F(ServingTest, OtherMethodsAreRefused) {
  HttpResult r = http_request(port_, "DELETE", "/metrics");
  EXPECT_GE(r.status, 400) << r.error;
  EXPECT_LT(r.status, 500) << r.status_line;
  expect_still_serving();
}

TEST_F(ServingTest, GarbageRequestIs400AndServerKeepsServing) {
  HttpResult r = http_raw(port_, "this is not http\r\n\r\n");
  EXPECT_EQ(r.status, 400) << r.error << " " << r.status_line;
  expect_still_serving();
}

TEST_F(ServingTest, ManyConcurrentScrapes) {
  const std::string want = page_text(*snapshot(), exposition::Format::kText004);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        HttpResult r = http_request(port_, "GET", "/metrics");
        if (r.status == 200 && r.body == want) ok.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 80);
}

// ---- The agent binary: graceful shutdown on SIGTERM. ----

TEST(AgentProcess, ExitsZeroWithinThreeSecondsOfSigterm) {
  const std::string bin = llmon::testing::llmon_binary();
  ASSERT_EQ(access(bin.c_str(), X_OK), 0) << bin << " is not executable";
  pid_t pid = -1;
  int port = 0;
  bool up = false;
  // The free port may be taken between asking and binding: retry a few times.
  for (int attempt = 0; attempt < 3 && !up; ++attempt) {
    port = llmon::testing::free_tcp_port();
    ASSERT_GT(port, 0);
    std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port);
    pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const char* argv[] = {bin.c_str(), "agent", listen.c_str(), "--log.level=error", nullptr};
      execv(bin.c_str(), const_cast<char* const*>(argv));
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;  // died (port taken?): retry
        break;
      }
      if (http_request(port, "GET", "/-/ready", {}, 1000).status == 200) {
        up = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!up && pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      FAIL() << "agent did not answer /-/ready within 10 s";
    }
  }
  ASSERT_TRUE(up) << "agent could not start";
  // Serving a scrape right before the signal must not delay shutdown.
  EXPECT_EQ(http_request(port, "GET", "/metrics").status, 200);

  ASSERT_EQ(kill(pid, SIGTERM), 0);
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool exited = false;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "agent still running 3 s after SIGTERM";
  }
  ASSERT_TRUE(WIFEXITED(status)) << "agent died by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // And nothing answers on its port any more.
  EXPECT_EQ(http_request(port, "GET", "/-/healthy", {}, 1000).status, 0);
}

}  // namespace
}  // namespace llmon::http
