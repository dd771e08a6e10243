// `llmon query`'s HTTP client (app/api_client.h): URL and response parsing on
// literal bytes (truncated and malformed included), then one GET against a
// real http::Server and one against a closed port.
#include "net/api_client.h"

#include <gtest/gtest.h>

#include "http/metrics_page.h"
#include "http/server.h"
#include "support/http_client.h"

namespace llmon::net {
namespace {

TEST(ApiClientTest, ParsesUrls) {
  auto u = parse_http_url("http://127.0.0.1:8747");
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8747);
  EXPECT_EQ(u->base_path, "");
  u = parse_http_url("gpu01:9090/prometheus/");
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_EQ(u->host, "gpu01");
  EXPECT_EQ(u->port, 9090);
  EXPECT_EQ(u->base_path, "/prometheus");
  u = parse_http_url("HTTP://[::1]:8747/");
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 8747);
  u = parse_http_url("http://example.org");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->port, 80);

  u = parse_http_url("https://gpu01");
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_TRUE(u->https);
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(url_text(*u), "https://gpu01:443");
  u = parse_http_url("HTTPS://[::1]:9/p/");
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_EQ(url_text(*u), "https://[::1]:9/p");
  EXPECT_FALSE(parse_http_url("http://x").value().https);
  EXPECT_NE(parse_http_url("https://u:p@x").error().find("--http.config.file"), std::string::npos);
  EXPECT_EQ(parse_http_url("ftp://x").error(), "invalid URL \"ftp://x\": the scheme must be http or https");
  EXPECT_EQ(parse_http_url("http://x:0").error(), "invalid URL \"http://x:0\": bad port \"0\"");
  EXPECT_FALSE(parse_http_url("http://x:70000").has_value());
  EXPECT_FALSE(parse_http_url("http://x:port").has_value());
  EXPECT_FALSE(parse_http_url("http://").has_value());
  EXPECT_FALSE(parse_http_url("http://:80").has_value());
  EXPECT_FALSE(parse_http_url("http://u:p@x").has_value());
  EXPECT_FALSE(parse_http_url("http://[::1").has_value());
  EXPECT_FALSE(parse_http_url("http://x/a?b").has_value());
}

TEST(ApiClientTest, UrlForListenAddress) {
  EXPECT_EQ(url_for_listen_address("127.0.0.1:8747"), "http://127.0.0.1:8747");
  EXPECT_EQ(url_for_listen_address("0.0.0.0:9"), "http://127.0.0.1:9");
  EXPECT_EQ(url_for_listen_address(":8747"), "http://127.0.0.1:8747");
  EXPECT_EQ(url_for_listen_address("[::]:8747"), "http://[::1]:8747");
  EXPECT_EQ(url_for_listen_address("[fe80::1]:1"), "http://[fe80::1]:1");
  EXPECT_EQ(url_for_listen_address("gpu01:8747"), "http://gpu01:8747");
}

TEST(ApiClientTest, UrlEncodeKeepsOnlyUnreserved) {
  EXPECT_EQ(url_encode("sum by (job) (rate(x{a=\"b\"}[5m])) + 1"),
            "sum%20by%20%28job%29%20%28rate%28x%7Ba%3D%22b%22%7D%5B5m%5D%29%29%20%2B%201");
  EXPECT_EQ(url_encode("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(url_encode(std::string("\0\xff&=;", 5)), "%00%FF%26%3D%3B");
}

TEST(ApiClientTest, ParsesResponses) {
  auto r = parse_http_response("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}junk");
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(r->body, "{}");

  r = parse_http_response(
      "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n");
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "abc0123456789");

  r = parse_http_response("HTTP/1.0 404 Not Found\r\n\r\nread to the close");
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->body, "read to the close");

  EXPECT_EQ(parse_http_response("").error(), "the server closed the connection without answering");
  EXPECT_EQ(parse_http_response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n").error(), "truncated response header");
  EXPECT_EQ(parse_http_response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab").error(),
            "truncated body: 2 of 5 bytes");
  EXPECT_EQ(parse_http_response("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nab").error(), "bad Content-Length \"x\"");
  EXPECT_EQ(parse_http_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab").error(),
            "truncated chunked body");
  EXPECT_EQ(parse_http_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").error(),
            "bad chunk size \"zz\"");
  EXPECT_FALSE(parse_http_response("SSH-2.0-OpenSSH\r\n\r\n").has_value());
  EXPECT_FALSE(parse_http_response("HTTP/1.1 2x0 OK\r\n\r\n").has_value());
  EXPECT_FALSE(parse_http_response("HTTP/1.1 200 OK\r\nno colon\r\n\r\n").has_value());
  EXPECT_FALSE(parse_http_response(std::string("HTTP/1.1 2\0\xff OK\r\n\r\n", 19)).has_value());
}

TEST(ApiClientTest, GetsFromARealServerAndReportsARefusedConnection) {
  base::Logger log(base::LogLevel::kError);
  llmon::http::MetricsPage page([] { return model::SnapshotPtr(); });
  llmon::http::ServerOptions opts;
  opts.listen_address = "127.0.0.1:0";
  llmon::http::Server server(opts, page, log);
  std::string seen;
  ASSERT_TRUE(server
                  .add_route("/p/echo", {"GET"},
                             [&seen](const llmon::http::Request& req, llmon::http::Response& res) {
                               seen = req.target;
                               res.body = std::string(100000, 'x');
                             })
                  .is_ok());
  ASSERT_TRUE(server.start().is_ok());
  HttpUrl u;
  u.host = "127.0.0.1";
  u.port = server.port();
  u.base_path = "/p";
  auto r = http_get(u, "/echo?query=a%20b", 5000);
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), 100000u);
  EXPECT_EQ(seen, "/p/echo?query=a%20b");
  server.stop();

  HttpUrl closed;
  closed.host = "127.0.0.1";
  closed.port = llmon::testing::free_tcp_port();
  auto c = http_get(closed, "/", 5000);
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().find("cannot connect to 127.0.0.1:"), std::string::npos) << c.error();
  EXPECT_NE(c.error().find("refused"), std::string::npos) << c.error();
}

}  // namespace
}  // namespace llmon::net
