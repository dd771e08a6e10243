// scrape/http_client_config.h: Prometheus's HTTP client block as a file of
// its own (--http.config.file) and its application to client options.
#include "scrape/http_client_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tsdb/temp_dir.h"

namespace llmon::scrape {
namespace {

TEST(HttpClientConfig, EveryKeyIsRead) {
  auto c = parse_http_client_config(R"(
basic_auth:
  username: u
  password_file: /run/pw
tls_config:
  ca_file: /etc/ca.pem
  cert_file: c.pem
  key_file: c.key
  server_name: gpu01
  insecure_skip_verify: false
follow_redirects: false
enable_http2: true
)",
                                    "h.yml");
  ASSERT_TRUE(c) << c.error();
  ASSERT_TRUE(c->basic_auth);
  EXPECT_EQ(c->basic_auth->username, "u");
  EXPECT_EQ(c->basic_auth->password_file, "/run/pw");
  EXPECT_EQ(c->tls.ca_file, "/etc/ca.pem");
  EXPECT_EQ(c->tls.cert_file, "c.pem");
  EXPECT_EQ(c->tls.server_name, "gpu01");
  EXPECT_FALSE(c->authorization);
  auto b = parse_http_client_config("bearer_token: abc\n", "h.yml");
  ASSERT_TRUE(b) << b.error();
  ASSERT_TRUE(b->authorization);
  EXPECT_EQ(b->authorization->type, "Bearer");
  EXPECT_EQ(b->authorization->credentials, "abc");
  EXPECT_TRUE(parse_http_client_config("", "h.yml"));  // empty: nothing set
}

TEST(HttpClientConfig, RefusalsNameTheirPlace) {
  auto expect = [](const char* text, const char* what) {
    auto c = parse_http_client_config(text, "h.yml");
    ASSERT_FALSE(c) << text;
    EXPECT_NE(c.error().find(what), std::string::npos) << c.error();
  };
  expect("tls_config:\n  ca_fil: x\n", "h.yml:2:3:");
  expect("oauth2:\n  client_id: x\n", "\"oauth2\" is not supported");
  expect("proxy_url: http://p\n", "\"proxy_url\" is not supported");
  expect("follow_redirects: true\n", "does not follow redirects");
  expect("basic_auth: {username: u}\nbearer_token: x\n", "at most one of basic_auth, authorization and bearer_token");
  expect("bearer_token: x\nbearer_token_file: y\n", "at most one of bearer_token & bearer_token_file");
  expect("- a\n", "expected a mapping");
  expect("basic_auth: [\n", "h.yml:");
}

TEST(HttpClientConfig, AppliedWithSecretsReadNow) {
  testing::TempDir dir;
  const std::string pw = dir.path() + "/pw";
  std::ofstream(pw) << "s3cret\n";
  HttpClientConfig c;
  c.basic_auth = BasicAuth{"u", "", pw};
  c.tls.ca_file = "/ca.pem";
  c.tls.insecure_skip_verify = true;
  net::http::ClientOptions o;
  ASSERT_TRUE(apply_http_client_config(c, o));
  EXPECT_EQ(o.basic_auth_username, "u");
  EXPECT_EQ(o.basic_auth_password, "s3cret");  // trimmed
  EXPECT_EQ(o.tls_ca_file, "/ca.pem");
  EXPECT_TRUE(o.tls_insecure_skip_verify);
  std::ofstream(pw) << "rotated\n";
  ASSERT_TRUE(apply_http_client_config(c, o));
  EXPECT_EQ(o.basic_auth_password, "rotated");
  HttpClientConfig a;
  a.authorization = Authorization{"Token", "", pw};
  net::http::ClientOptions oa;
  ASSERT_TRUE(apply_http_client_config(a, oa));
  ASSERT_EQ(oa.headers.size(), 1u);
  EXPECT_EQ(oa.headers[0].second, "Token rotated");
  c.basic_auth->password_file = dir.path() + "/missing";
  auto st = apply_http_client_config(c, o);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("unable to read"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace llmon::scrape
