// The net HTTP client: URL parsing, request bytes and response parsing on
// literal input, then real exchanges with in-test receivers (plain and TLS
// with a certificate made here), including timeouts and dropped connections.
#include "net/http_client.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <cstdio>

#include "net/base64.h"
#include "notify/delivery_receiver.h"  // the notify tests' receiver, written apart from net

namespace llmon::net::http {
namespace {

using notify::testing::Receiver;
using notify::testing::Reply;
using notify::testing::ScopedTempDir;

// ---- URLs ----

TEST(HttpUrl, Parses) {
  auto u = parse_url("http://example.com");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->scheme, "http");
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->target, "/");
  EXPECT_FALSE(u->has_userinfo);
  EXPECT_EQ(u->host_header(), "example.com");

  u = parse_url("HTTPS://User:p%40ss@Alert.Example:8443/prefix/path?x=1&y=2#frag");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "alert.example");
  EXPECT_EQ(u->port, 8443);
  EXPECT_EQ(u->target, "/prefix/path?x=1&y=2");
  EXPECT_TRUE(u->has_userinfo);
  EXPECT_EQ(u->username, "User");
  EXPECT_EQ(u->password, "p@ss");
  EXPECT_EQ(u->host_header(), "alert.example:8443");
  EXPECT_EQ(u->redacted(), "https://alert.example:8443/prefix/path?x=1&y=2");

  u = parse_url("http://[::1]:9093?q");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 9093);
  EXPECT_EQ(u->target, "/?q");
  EXPECT_EQ(u->host_header(), "[::1]:9093");

  u = parse_url("https://h:443/");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host_header(), "h");  // default port left out
  u = parse_url("http://h:/x");      // empty port: the default, as Go's net/url
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->port, 80);
  u = parse_url("http://user@h/");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->username, "user");
  EXPECT_EQ(u->password, "");
}

TEST(HttpUrl, RejectsWithReasons) {
  struct Case {
    const char* url;
    const char* why;
  } cases[] = {
      {"", "empty"},
      {"example.com/x", "scheme://"},
      {"ftp://h/", "not supported"},
      {"http:///path", "missing host"},
      {"http://h:0/", "1..65535"},
      {"http://h:65536/", "1..65535"},
      {"http://h:8x/", "1..65535"},
      {"http://h/a b", "space"},
      {"http://h/\xc3\xa9", "non-ASCII"},
      {"http://[::1/", "unterminated"},
      {"http://[zz::1]/", "IPv6"},
      {"http://[::1]x/", "after ']'"},
      {"http://h%41/", "invalid character"},
      {"http://us%4:pw@h/", "percent-encoding"},
  };
  for (const Case& c : cases) {
    auto u = parse_url(c.url);
    ASSERT_FALSE(u) << c.url;
    EXPECT_NE(u.error().find(c.why), std::string::npos) << c.url << " -> " << u.error();
  }
  // The password never appears in an error.
  auto u = parse_url("ftp://bob:hunter2@h/");
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().find("hunter2"), std::string::npos) << u.error();
}

TEST(HttpUrl, JoinPathLikeGoPathJoin) {
  auto join = [](const char* base, const char* path) { return join_path(*parse_url(base), path).target; };
  EXPECT_EQ(join("http://am:9093", "/api/v2/alerts"), "/api/v2/alerts");
  EXPECT_EQ(join("http://am:9093/", "/api/v2/alerts"), "/api/v2/alerts");
  EXPECT_EQ(join("http://am:9093/prefix", "/api/v2/alerts"), "/prefix/api/v2/alerts");
  EXPECT_EQ(join("http://am:9093/prefix//sub/", "api/v2/alerts"), "/prefix/sub/api/v2/alerts");
  EXPECT_EQ(join("http://am:9093/a/./b/../c?x=1", "/api/v2/alerts"), "/a/c/api/v2/alerts");
  EXPECT_EQ(join("http://am:9093/..", "/x"), "/x");
}

TEST(HttpUrl, Base64Rfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("\xff\xfe"), "//4=");
}

// ---- Request bytes ----

TEST(HttpRequest, SerializedBytes) {
  ClientOptions o;
  o.user_agent = "llmon/test";
  o.headers = {{"X-Extra", "a\r\nInjected: yes"}};
  const Url u = *parse_url("http://am.local:9093/api/v2/alerts");
  EXPECT_EQ(serialize_request("POST", u, "application/json", "[]", o),
            "POST /api/v2/alerts HTTP/1.1\r\n"
            "Host: am.local:9093\r\n"
            "User-Agent: llmon/test\r\n"
            "Content-Type: application/json\r\n"
            "Content-Length: 2\r\n"
            "X-Extra: a  Injected: yes\r\n"
            "Connection: close\r\n\r\n[]");
  o.headers.clear();
  EXPECT_EQ(serialize_request("GET", u, "", "", o),
            "GET /api/v2/alerts HTTP/1.1\r\nHost: am.local:9093\r\nUser-Agent: llmon/test\r\n"
            "Connection: close\r\n\r\n");
}

TEST(HttpRequest, AuthorizationPrecedence) {
  ClientOptions o;
  o.user_agent = "";
  const Url with_userinfo = *parse_url("http://Aladdin:open%20sesame@h/");
  const Url plain = *parse_url("http://h/");
  auto auth = [&](const Url& u) {
    const std::string r = serialize_request("GET", u, "", "", o);
    const size_t at = r.find("Authorization: ");
    return at == std::string::npos ? std::string() : r.substr(at + 15, r.find("\r\n", at) - at - 15);
  };
  EXPECT_EQ(auth(plain), "");
  EXPECT_EQ(auth(with_userinfo), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");  // RFC 7617's example
  o.bearer_token = "tok";
  EXPECT_EQ(auth(plain), "Bearer tok");
  EXPECT_EQ(auth(with_userinfo), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  o.basic_auth_username = "u";
  o.basic_auth_password = "p";
  EXPECT_EQ(auth(with_userinfo), "Basic dTpw");
  EXPECT_EQ(auth(plain), "Basic dTpw");
}

// ---- Response parsing ----

// Feeds `raw` split at `split`, then ends the stream.
ResponseParser::State parse_split(ResponseParser& p, std::string_view raw, size_t split) {
  auto s = p.feed(raw.substr(0, split));
  if (s == ResponseParser::State::kNeedMore) s = p.feed(raw.substr(split));
  if (s == ResponseParser::State::kNeedMore) s = p.finish();
  return s;
}

TEST(HttpResponse, ContentLengthSplitAnywhere) {
  const std::string raw = "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhelloEXTRA";
  for (size_t split = 0; split <= raw.size(); ++split) {
    ResponseParser p(1024);
    ASSERT_EQ(parse_split(p, raw, split), ResponseParser::State::kDone) << split << " " << p.error();
    EXPECT_EQ(p.response().status, 201);
    EXPECT_EQ(p.response().reason, "Created");
    EXPECT_EQ(p.response().body, "hello");
    EXPECT_EQ(p.response().header("content-type"), "text/plain");
  }
}

TEST(HttpResponse, ChunkedSplitAnywhere) {
  const std::string raw =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=val\r\nhello\r\n1A\r\n, chunked world, 26 bytes!\r\n0\r\nTrailer: x\r\n\r\n";
  for (size_t split = 0; split <= raw.size(); ++split) {
    ResponseParser p(1024);
    ASSERT_EQ(parse_split(p, raw, split), ResponseParser::State::kDone) << split << " " << p.error();
    EXPECT_EQ(p.response().body, "hello, chunked world, 26 bytes!");
  }
}

TEST(HttpResponse, InterimBodilessAndToClose) {
  ResponseParser p(1024);
  EXPECT_EQ(p.feed("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nX: y\r\n\r\n"),
            ResponseParser::State::kDone);
  EXPECT_EQ(p.response().status, 204);
  EXPECT_EQ(p.response().body, "");

  ResponseParser head(1024, /*head_request=*/true);
  EXPECT_EQ(head.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), ResponseParser::State::kDone);

  ResponseParser to_close(1024);
  EXPECT_EQ(to_close.feed("HTTP/1.0 500 Internal\nServer: x\n\nboom "), ResponseParser::State::kNeedMore);
  EXPECT_EQ(to_close.feed("boom"), ResponseParser::State::kNeedMore);
  EXPECT_EQ(to_close.finish(), ResponseParser::State::kDone);
  EXPECT_EQ(to_close.response().status, 500);
  EXPECT_EQ(to_close.response().body, "boom boom");

  ResponseParser no_reason(1024);
  EXPECT_EQ(no_reason.feed("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n"), ResponseParser::State::kDone);
  EXPECT_EQ(no_reason.response().status, 404);
  EXPECT_EQ(no_reason.response().reason, "");
}

TEST(HttpResponse, BodyIsBounded) {
  for (const std::string raw : {"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789",
                                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n",
                                "HTTP/1.1 200 OK\r\n\r\n0123456789"}) {
    ResponseParser p(4);
    auto s = p.feed(raw);
    if (s == ResponseParser::State::kNeedMore) s = p.finish();
    ASSERT_EQ(s, ResponseParser::State::kDone) << raw;
    EXPECT_EQ(p.response().body, "0123");
    EXPECT_TRUE(p.response().body_truncated);
  }
}

TEST(HttpResponse, MalformedAndTruncated) {
  struct Case {
    std::string raw;
    const char* why;
  } cases[] = {
      {"", "before any response"},
      {"HTTP/1.1 200 OK\r\nContent-Le", "inside the response head"},
      {"SMTP 220 hello\r\n\r\n", "malformed status line"},
      {"HTTP/1.1 2x0 OK\r\n\r\n", "malformed status code"},
      {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line"},
      {"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n", "bad Content-Length"},
      {"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", "4 bytes of the body"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX", "not followed by CRLF"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "inside the chunked body"},
  };
  for (const Case& c : cases) {
    ResponseParser p(1024);
    auto s = p.feed(c.raw);
    if (s == ResponseParser::State::kNeedMore) s = p.finish();
    ASSERT_EQ(s, ResponseParser::State::kError) << c.raw;
    EXPECT_NE(p.error().find(c.why), std::string::npos) << c.raw << " -> " << p.error();
  }
  ResponseParser big(1024);
  EXPECT_EQ(big.feed("HTTP/1.1 200 OK\r\nX: " + std::string(70000, 'a')), ResponseParser::State::kError);
}

// ---- Real exchanges ----

ClientOptions fast_options() {
  ClientOptions o;
  o.connect_timeout_ms = 2000;
  o.timeout_ms = 3000;
  return o;
}

TEST(HttpClient, PostsAndReadsResponses) {
  Receiver r([](const notify::testing::ReceivedRequest& req, int) {
    if (req.target == "/chunked") return Reply{Reply::Action::kRespond, 200, "chunked body here", true};
    if (req.target == "/error") return Reply{Reply::Action::kRespond, 503, "overloaded"};
    return Reply{Reply::Action::kRespond, 200, "got " + std::to_string(req.body.size())};
  });
  ASSERT_TRUE(r.ok());
  ClientOptions o = fast_options();
  o.bearer_token = "secret-token";
  Client c(o);
  auto resp = c.post(*parse_url(r.url("/api/v2/alerts")), "application/json", "[{\"a\":1}]");
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "got 9");
  resp = c.get(*parse_url(r.url("/chunked")));
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->body, "chunked body here");
  resp = c.post(*parse_url(r.url("/error")), "text/plain", "x");
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 503);
  EXPECT_EQ(resp->body, "overloaded");

  const auto reqs = r.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/api/v2/alerts");
  EXPECT_EQ(reqs[0].body, "[{\"a\":1}]");
  EXPECT_EQ(reqs[0].header("content-type"), "application/json");
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer secret-token");
  EXPECT_EQ(reqs[0].header("host"), "127.0.0.1:" + std::to_string(r.port()));
  EXPECT_EQ(reqs[1].method, "GET");
}

TEST(HttpClient, TimesOutOnAHungServer) {
  Receiver r([](const notify::testing::ReceivedRequest&, int) { return Reply{Reply::Action::kHang}; });
  ClientOptions o = fast_options();
  o.timeout_ms = 300;
  Client c(o);
  const auto start = std::chrono::steady_clock::now();
  auto resp = c.post(*parse_url(r.url("/hang")), "application/json", "{}");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("timed out waiting for the response"), std::string::npos) << resp.error();
  EXPECT_NE(resp.error().find("POST http://127.0.0.1:"), std::string::npos) << resp.error();
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::milliseconds(2500));
}

TEST(HttpClient, ConnectionClosedWithoutAnswer) {
  Receiver r([](const notify::testing::ReceivedRequest&, int) { return Reply{Reply::Action::kClose}; });
  Client c(fast_options());
  auto resp = c.post(*parse_url(r.url("/")), "application/json", "{}");
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("closed before any response"), std::string::npos) << resp.error();
}

TEST(HttpClient, ConnectionRefused) {
  int port;
  {
    Receiver gone;
    port = gone.port();
  }  // closed: nothing listens there now
  Client c(fast_options());
  auto resp = c.post(*parse_url("http://127.0.0.1:" + std::to_string(port) + "/"), "application/json", "{}");
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("Connection refused"), std::string::npos) << resp.error();
}

TEST(HttpClient, UnresolvableHost) {
  Client c(fast_options());
  auto resp = c.get(*parse_url("http://no-such-host.invalid/"));
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("resolving no-such-host.invalid"), std::string::npos) << resp.error();
}

// ---- TLS ----

// A self-signed certificate (its own CA) with the given subjectAltName.
struct TestCert {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  SSL_CTX* server = nullptr;
  std::string pem_path;

  TestCert(const std::string& dir, const char* san) {
    key = EVP_EC_gen("P-256");
    cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("llmon test"), -1, -1,
                               0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    for (auto [nid, value] :
         {std::pair{NID_subject_alt_name, san}, std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
      X509_add_ext(cert, ext, -1);
      X509_EXTENSION_free(ext);
    }
    X509_sign(cert, key, EVP_sha256());
    pem_path = dir + "/ca.pem";
    FILE* f = std::fopen(pem_path.c_str(), "w");
    PEM_write_X509(f, cert);
    std::fclose(f);
    server = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(server, cert);
    SSL_CTX_use_PrivateKey(server, key);
  }
  ~TestCert() {
    SSL_CTX_free(server);
    X509_free(cert);
    EVP_PKEY_free(key);
  }
};

TEST(HttpClientTls, VerifiesAgainstTheGivenCa) {
  ScopedTempDir dir;
  TestCert cert(dir.path(), "DNS:localhost,IP:127.0.0.1");
  Receiver r(
      [](const notify::testing::ReceivedRequest&, int) {
        return Reply{Reply::Action::kRespond, 200, "secure"};
      },
      cert.server);
  ClientOptions o = fast_options();
  o.tls_ca_file = cert.pem_path;
  Client c(o);
  auto resp = c.post(*parse_url(r.url("/hook")), "application/json", "{}");
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->body, "secure");
  // By name: SNI carries it.
  resp = c.post(*parse_url("https://localhost:" + std::to_string(r.port()) + "/hook"), "application/json", "{}");
  ASSERT_TRUE(resp) << resp.error();
  const auto reqs = r.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].sni, "");  // no SNI for an IP address
  EXPECT_EQ(reqs[1].sni, "localhost");
  EXPECT_EQ(reqs[1].body, "{}");
}

TEST(HttpClientTls, RejectsUnknownCaUnlessInsecure) {
  ScopedTempDir dir;
  TestCert cert(dir.path(), "IP:127.0.0.1");
  Receiver r(nullptr, cert.server);
  ClientOptions o = fast_options();
  o.tls_ca_file = "";  // system store: does not know our CA
  Client strict(o);
  auto resp = strict.get(*parse_url(r.url("/")));
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("certificate verification failed"), std::string::npos) << resp.error();
  o.tls_insecure_skip_verify = true;
  Client insecure(o);
  resp = insecure.get(*parse_url(r.url("/")));
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 200);
}

TEST(HttpClientTls, ChecksTheNameAndHonoursServerNameOverride) {
  ScopedTempDir dir;
  TestCert cert(dir.path(), "DNS:alerts.example");
  Receiver r(nullptr, cert.server);
  ClientOptions o = fast_options();
  o.tls_ca_file = cert.pem_path;
  Client by_ip(o);
  auto resp = by_ip.get(*parse_url(r.url("/")));
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("certificate verification failed"), std::string::npos) << resp.error();
  o.tls_server_name = "alerts.example";
  Client named(o);
  resp = named.get(*parse_url(r.url("/")));
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(r.requests().back().sni, "alerts.example");
}

TEST(HttpClientTls, MissingCaFileIsAnError) {
  ClientOptions o;
  o.tls_ca_file = "/nonexistent/ca.pem";
  Client c(o);
  Status s = c.prepare_tls();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("loading CA file /nonexistent/ca.pem"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace llmon::net::http
