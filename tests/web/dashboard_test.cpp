// web::register_dashboard over a real listener: "/" and "/assets/<name>"
// with content types, gzip by Accept-Encoding, ETag revalidation, 404s, and
// the landing page that "/" falls back to when no dashboard is registered.
#include "web/dashboard.h"

#include <gtest/gtest.h>

#include "support/http_client.h"

namespace llmon::web {
namespace {

using testing::http_raw;
using testing::http_request;

const Asset kAssets[] = {
    {"app.css", "body{color:red}"},
    {"app.js", "console.log('llmon')"},
    {"index.html", "<!doctype html><script src=assets/app.js></script>"},
};

class DashboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    opts_.listen_address = "127.0.0.1:0";
    server_ = std::make_unique<http::Server>(opts_, page_, log_);
  }
  void start() { ASSERT_TRUE(server_->start().is_ok()); }
  int port() const { return server_->port(); }

  base::Logger log_{base::LogLevel::kError};
  http::MetricsPage page_{[] { return model::SnapshotPtr(); }};
  http::ServerOptions opts_;
  std::unique_ptr<http::Server> server_;
};

TEST_F(DashboardTest, ServesIndexAndAssetsWithTheirTypes) {
  ASSERT_TRUE(register_dashboard(*server_, kAssets).is_ok());
  start();
  auto index = http_request(port(), "GET", "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(index.body, kAssets[2].content);
  EXPECT_EQ(index.header("cache-control"), "no-cache");
  auto js = http_request(port(), "GET", "/assets/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(js.body, kAssets[1].content);
  EXPECT_EQ(http_request(port(), "GET", "/assets/app.css").header("content-type"), "text/css; charset=utf-8");
  EXPECT_EQ(http_request(port(), "GET", "/assets/nope.js").status, 404);
  EXPECT_EQ(http_request(port(), "GET", "/assets/index.html").status, 404) << "the index is served at / only";
  EXPECT_EQ(http_request(port(), "GET", "/assets/").status, 404);
  EXPECT_EQ(http_request(port(), "POST", "/").status, 405);
  auto head = http_raw(port(), "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("content-length"), std::to_string(kAssets[2].content.size()));
}

TEST_F(DashboardTest, GzipsForClientsThatAcceptIt) {
  ASSERT_TRUE(register_dashboard(*server_, kAssets).is_ok());
  start();
  auto r = http_request(port(), "GET", "/assets/app.js", {"Accept-Encoding: gzip, deflate"});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-encoding"), "gzip");
  EXPECT_EQ(r.header("vary"), "Accept-Encoding");
  std::string plain;
  ASSERT_TRUE(testing::gunzip(r.body, plain));
  EXPECT_EQ(plain, kAssets[1].content);
  EXPECT_FALSE(http_request(port(), "GET", "/assets/app.js").has_header("content-encoding"));
}

TEST_F(DashboardTest, RevalidatesWithTheETag) {
  ASSERT_TRUE(register_dashboard(*server_, kAssets).is_ok());
  start();
  auto first = http_request(port(), "GET", "/assets/app.js");
  std::string etag = first.header("etag");
  ASSERT_EQ(etag.size(), 18u) << etag;
  EXPECT_EQ(etag.front(), '"');
  auto again = http_request(port(), "GET", "/assets/app.js", {"If-None-Match: " + etag});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(again.header("etag"), etag);
  EXPECT_EQ(http_request(port(), "GET", "/assets/app.js", {"If-None-Match: \"other\""}).status, 200);
  EXPECT_NE(http_request(port(), "GET", "/assets/app.css").header("etag"), etag) << "one tag per content";
}

TEST_F(DashboardTest, RefusesABundleWithoutIndex) {
  const Asset only_js[] = {{"app.js", "x"}};
  Status s = register_dashboard(*server_, only_js);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("index.html"), std::string::npos) << s.message();
}

TEST_F(DashboardTest, LandingPageWhenNoDashboard) {
  start();
  auto r = http_request(port(), "GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("/metrics"), std::string::npos) << r.body;
}

TEST(ContentType, ByExtension) {
  EXPECT_STREQ(content_type_for("a.svg"), "image/svg+xml");
  EXPECT_STREQ(content_type_for("a.woff2"), "font/woff2");
  EXPECT_STREQ(content_type_for("README"), "application/octet-stream");
  EXPECT_STREQ(content_type_for("x.json"), "application/json");
}

TEST(EmbeddedBundle, HasTheDashboardWhenBuiltWithIt) {
  auto assets = dashboard_assets();
  if (assets.empty()) GTEST_SKIP() << "built with -DLLMON_WEB=OFF";
  bool index = false;
  for (const Asset& a : assets) {
    if (a.name == "index.html") index = a.content.find("assets/app.js") != std::string_view::npos;
  }
  EXPECT_TRUE(index);
  EXPECT_EQ(assets.size(), 3u);
}

}  // namespace
}  // namespace llmon::web
