#include "websec/web_config.h"

#include <gtest/gtest.h>

#include "websec/basic_auth.h"
#include "websec/roles.h"

namespace llmon::websec {
namespace {

constexpr const char* kHash = "$2b$10$UT9RKMdzHluW09sQ/KuIu.teqMrFyhvr2Icihw5ka0HaIg5eZ/iL2";

TEST(WebConfig, ParsesTheToolkitFields) {
  auto c = parse_web_config(
      "tls_server_config:\n  cert_file: s.pem\n  key_file: /k/s.key\n  client_auth_type: RequireAndVerifyClientCert\n"
      "  client_ca_file: ca.pem\n  min_version: TLS13\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"
      "  curve_preferences: [X25519]\nhttp_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\n"
      "basic_auth_users:\n  alice: '" +
          std::string(kHash) + "'\n",
      "/etc/llmon/web.yml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_TRUE(c->tls.enabled);
  EXPECT_EQ(c->tls.cert_file, "/etc/llmon/s.pem");
  EXPECT_EQ(c->tls.key_file, "/k/s.key");
  EXPECT_EQ(c->tls.client_ca_file, "/etc/llmon/ca.pem");
  EXPECT_EQ(c->tls.client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(c->tls.min_version, 0x0304);
  EXPECT_FALSE(c->http2);
  ASSERT_EQ(c->headers.size(), 1u);
  ASSERT_EQ(c->users.size(), 1u);
  EXPECT_EQ(c->users[0].first, "alice");
}

TEST(WebConfig, RefusesWhatPromtoolRefuses) {
  const char* bad[] = {
      "foo: 1\n",
      "tls_server_config:\n  cert_file: c\n  key_file: k\n  bogus: 1\n",
      "tls_server_config:\n  cert_file: c\n",
      "tls_server_config:\n  cert_file: c\n  key_file: k\n  client_ca_file: ca\n",
      "tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: Bogus\n",
      "tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS14\n",
      "tls_server_config:\n  cert_file: c\n  key_file: k\n  curve_preferences: [X448]\n",
      "tls_server_config:\n  cert_file: c\n  key_file: k\n  cipher_suites: [FOO]\n",
      "http_server_config:\n  headers:\n    X-Foo: a\n",
      "http_server_config:\n  headers:\n    X-Frame-Options: DENY\n",
      "basic_auth_users:\n  a: x\n",
      "rate_limit:\n  interval: 1s\n",
  };
  for (const char* text : bad) EXPECT_FALSE(parse_web_config(text, "w.yml")) << text;
}

TEST(WebConfig, UnknownKeyNamesFileLineColumn) {
  auto c = parse_web_config("tls_server_config:\n  cert_file: c\n  key_file: k\n  bogus: 1\n", "w.yml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find("w.yml:4:3:"), std::string::npos) << c.error();
  EXPECT_NE(c.error().find("bogus"), std::string::npos);
}

TEST(WebConfig, EmptyFileIsPlainHttp) {
  auto c = parse_web_config("", "w.yml");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->tls.enabled);
}

TEST(BasicAuth, VerifiesBcryptAndParsesTheHeader) {
  auto cred = parse_basic_authorization("Basic YWxpY2U6bGxtb24tZGVjb3ktbm90LWEtcGFzc3dvcmQ=");
  ASSERT_TRUE(cred);
  EXPECT_EQ(cred->first, "alice");
  BasicAuthVerifier v(std::vector<std::pair<std::string, std::string>>{{"alice", kHash}});
  EXPECT_TRUE(v.verify(cred->first, cred->second));
  EXPECT_EQ(v.cached(), 1u);
  EXPECT_TRUE(v.verify(cred->first, cred->second));  // from the cache
  EXPECT_FALSE(v.verify("alice", "wrong"));
  EXPECT_FALSE(v.verify("bob", cred->second));
  EXPECT_FALSE(parse_basic_authorization("Bearer x"));
  EXPECT_FALSE(parse_basic_authorization("Basic !!!!"));
}

TEST(Roles, ReadsAndAdminRoutes) {
  EXPECT_EQ(required_role("GET", "/metrics"), Role::kRead);
  EXPECT_EQ(required_role("POST", "/api/v1/query"), Role::kRead);
  EXPECT_EQ(required_role("POST", "/-/reload"), Role::kAdmin);
  EXPECT_EQ(required_role("DELETE", "/api/v2/silence/x"), Role::kAdmin);
  EXPECT_EQ(required_role("POST", "/api/v2/silences"), Role::kAdmin);
  EXPECT_EQ(required_role("PUT", "/metrics/job/x"), Role::kAdmin);
  EXPECT_EQ(required_role("POST", "/api/v1/import"), Role::kAdmin);
  EXPECT_EQ(required_role("GET", "/metrics/job/x", {"/metrics/job/"}), Role::kAdmin);
  EXPECT_EQ(user_role("bob", {}), Role::kAdmin);
  EXPECT_EQ(user_role("bob", {"alice"}), Role::kRead);
  EXPECT_EQ(user_role("alice", {"alice"}), Role::kAdmin);
}

}  // namespace
}  // namespace llmon::websec
