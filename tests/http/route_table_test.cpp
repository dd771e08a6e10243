// http::Server's route table: routes added by other modules next to the
// built-in pages, 405 with Allow for a known path and a wrong method, and the
// per-route body limit applied from Content-Length before the body is read.
// Real sockets on 127.0.0.1 (port 0) and the raw client of tests/support.
#include <gtest/gtest.h>

#include <atomic>

#include "http/server.h"
#include "support/http_client.h"

namespace llmon::http {
namespace {

using llmon::testing::http_raw;
using llmon::testing::http_request;
using llmon::testing::HttpResult;

std::string post(const std::string& target, const std::string& body) {
  return "POST " + target +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

class RouteTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions opts;
    opts.listen_address = "127.0.0.1:0";
    opts.max_body_bytes = 1024;  // the default for routes without their own limit
    server_ = std::make_unique<Server>(opts, page_, log_);
    ASSERT_TRUE(server_
                    ->add_route("/echo", {"POST", "PUT"},
                                [this](const Request& req, Response& res) {
                                  calls_.fetch_add(1);
                                  res.body = req.method + " " + std::to_string(req.body.size()) + " " + req.query;
                                })
                    .is_ok());
    ASSERT_TRUE(server_
                    ->add_route(
                        "/big", {"POST"},
                        [](const Request& req, Response& res) {
                          res.status = 204;
                          res.headers.emplace_back("X-Got", std::to_string(req.body.size()));
                        },
                        4u << 20)
                    .is_ok());
    ASSERT_TRUE(
        server_->add_route("/info", {"GET"}, [](const Request&, Response& res) { res.body = "info page\n"; }).is_ok());
    Status st = server_->start();
    ASSERT_TRUE(st.is_ok()) << st.message();
    port_ = server_->port();
  }
  void TearDown() override {
    if (server_) server_->stop();
  }

  base::Logger log_{base::LogLevel::kError};
  MetricsPage page_{[] { return model::SnapshotPtr(); }};
  std::unique_ptr<Server> server_;
  std::atomic<int> calls_{0};
  int port_ = 0;
};

TEST_F(RouteTableTest, AddedRoutesAreServedWithTheirMethods) {
  HttpResult r = http_raw(port_, post("/echo?a=1", "hello"));
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.body, "POST 5 a=1");
  HttpResult put = http_request(port_, "PUT", "/echo");
  ASSERT_EQ(put.status, 200) << put.error;
  EXPECT_EQ(put.body, "PUT 0 ");
  HttpResult info = http_request(port_, "GET", "/info");
  ASSERT_EQ(info.status, 200) << info.error;
  EXPECT_EQ(info.body, "info page\n");
  // GET routes answer HEAD too, without the body.
  HttpResult head = http_request(port_, "HEAD", "/info");
  ASSERT_EQ(head.status, 200) << head.error;
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.header("content-length"), "10");
}

TEST_F(RouteTableTest, WrongMethodOnAKnownPathIs405WithAllow) {
  HttpResult r = http_request(port_, "GET", "/echo");
  EXPECT_EQ(r.status, 405) << r.error;
  EXPECT_EQ(r.header("allow"), "POST, PUT");
  EXPECT_EQ(calls_.load(), 0) << "the handler must not run for a refused method";
  HttpResult d = http_request(port_, "DELETE", "/info");
  EXPECT_EQ(d.status, 405) << d.error;
  EXPECT_EQ(d.header("allow"), "GET, HEAD");
  // The built-in pages go through the same table.
  HttpResult m = http_raw(port_, post("/metrics", "x"));
  EXPECT_EQ(m.status, 405) << m.error;
  EXPECT_EQ(m.header("allow"), "GET, HEAD");
  HttpResult healthy = http_request(port_, "GET", "/-/healthy");
  EXPECT_EQ(healthy.status, 200) << healthy.error;
  // Unknown paths stay 404 whatever the method.
  EXPECT_EQ(http_raw(port_, post("/nope", "x")).status, 404);
  EXPECT_EQ(http_request(port_, "GET", "/echo/").status, 404);
}

TEST_F(RouteTableTest, BodyLimitIsPerRoute) {
  const std::string two_kb(2048, 'b');
  // Over the server default (1 KiB): refused before the handler runs.
  HttpResult small = http_raw(port_, post("/echo", two_kb));
  EXPECT_EQ(small.status, 413) << small.error << " " << small.status_line;
  EXPECT_EQ(calls_.load(), 0);
  // The same body on the route with its own 4 MiB limit, with or without a query.
  HttpResult big = http_raw(port_, post("/big", two_kb));
  ASSERT_EQ(big.status, 204) << big.error << " " << big.status_line;
  EXPECT_EQ(big.header("x-got"), "2048");
  HttpResult bigq = http_raw(port_, post("/big?x=1&y=2", std::string(3u << 20, 'q')), false, 10000);
  ASSERT_EQ(bigq.status, 204) << bigq.error << " " << bigq.status_line;
  EXPECT_EQ(bigq.header("x-got"), std::to_string(3u << 20));
  // Beyond the route's own limit: 413 from Content-Length alone (no body sent).
  std::string head_only =
      "POST /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " + std::to_string((4u << 20) + 1) +
      "\r\n\r\n";
  HttpResult over = http_raw(port_, head_only);
  EXPECT_EQ(over.status, 413) << over.error << " " << over.status_line;
  // Still serving.
  EXPECT_EQ(http_raw(port_, post("/echo", "ok")).status, 200);
}

TEST(RouteTable, AddRouteRefusesBadRoutes) {
  base::Logger log{base::LogLevel::kError};
  MetricsPage page{[] { return model::SnapshotPtr(); }};
  ServerOptions opts;
  opts.listen_address = "127.0.0.1:0";
  Server server(opts, page, log);
  auto h = [](const Request&, Response&) {};
  EXPECT_FALSE(server.add_route("/metrics", {"POST"}, h).is_ok()) << "built-in paths are taken";
  EXPECT_FALSE(server.add_route("no-slash", {"GET"}, h).is_ok());
  EXPECT_FALSE(server.add_route("/x", {}, h).is_ok());
  EXPECT_FALSE(server.add_route("/x", {"GET"}, Server::Handler()).is_ok());
  EXPECT_TRUE(server.add_route("/x", {"GET"}, h).is_ok());
  Status dup = server.add_route("/x", {"POST"}, h);
  EXPECT_FALSE(dup.is_ok());
  EXPECT_NE(dup.message().find("/x"), std::string::npos) << dup.message();
  ASSERT_TRUE(server.start().is_ok());
  Status late = server.add_route("/y", {"GET"}, h);
  EXPECT_FALSE(late.is_ok()) << "the table is fixed once serving";
  EXPECT_NE(late.message().find("after the server started"), std::string::npos) << late.message();
  EXPECT_EQ(http_request(server.port(), "GET", "/y").status, 404);
  server.stop();
}

}  // namespace
}  // namespace llmon::http
