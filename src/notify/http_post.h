// A small blocking HTTP/1.1 client for notification delivery: one request
// per connection (Connection: close) to an http:// or https:// URL, with a
// connect timeout and a total deadline, optional basic-auth / bearer headers,
// and a bounded response body (Content-Length, chunked or read-to-close).
// https uses OpenSSL 3: peer verification against the system store or a CA
// file, SNI and host-name checks, or none with tls_insecure_skip_verify.
// Not a general client: no redirects, no keep-alive, no proxies, no HTTP/2.
// URL parsing, request serialisation and response parsing are pure functions
// (tested on literal bytes); Client does the I/O. A Client is immutable after
// construction apart from its lazily built TLS context, so one Client may be
// used from several threads at once. Nothing throws.
// Specs: RFC 3986 (URLs), RFC 9112 (HTTP/1.1 message syntax, chunked coding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::notify::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// ---- URLs ------------------------------------------------------------------

struct Url {
  std::string scheme;    // "http" or "https", lower case
  std::string host;      // lower case; an IPv6 literal without its brackets
  uint16_t port = 0;     // explicit, else 80 / 443
  std::string target;    // path and query as written ("/" when empty); never the fragment
  std::string username;  // from userinfo, percent-decoded; used for basic auth
  std::string password;
  bool has_userinfo = false;

  bool is_tls() const { return scheme == "https"; }
  bool host_is_ipv6() const { return host.find(':') != std::string::npos; }
  // The Host header value: host, bracketed when IPv6, ":port" unless default.
  std::string host_header() const;
  // scheme://host[:port]target without the userinfo (for logs and labels).
  std::string redacted() const;
};

// Parses an absolute http(s) URL. Rejects other schemes, an empty host, a bad
// port, and bytes that may not appear in a URL (controls, space, non-ASCII).
// Errors quote the URL (without its password) and say what is wrong.
Expected<Url> parse_url(std::string_view text);

// Appends `path` (e.g. "/api/v2/alerts") to url's path the way Go's
// path.Join("/", prefix, path) does: one slash between, "." and ".." and
// doubled slashes cleaned. The query, if any, is dropped.
Url join_path(const Url& base, std::string_view path);

// RFC 4648 base64 with padding (for the basic-auth header).
std::string base64_encode(std::string_view in);

// ---- Messages ----------------------------------------------------------------

struct ClientOptions {
  int connect_timeout_ms = 5000;               // name lookup excluded: getaddrinfo blocks
  int timeout_ms = 10000;                      // the whole exchange, connecting included
  size_t max_response_body_bytes = 64 * 1024;  // longer bodies are cut (body_truncated)
  bool tls_insecure_skip_verify = false;
  std::string tls_ca_file;          // PEM bundle; empty: OpenSSL's default store
  std::string tls_server_name;      // SNI and the name verified; empty: the URL's host
  std::string basic_auth_username;  // when set, wins over the URL's userinfo
  std::string basic_auth_password;
  std::string bearer_token;  // "Authorization: Bearer …"; ignored when basic auth is set
  std::string user_agent = "llmon";
  Headers headers;  // extra request headers, sent as given
};

struct Response {
  int status = 0;
  std::string reason;
  Headers headers;   // names lower-cased, in order received
  std::string body;  // de-chunked; at most max_response_body_bytes
  bool body_truncated = false;

  std::string_view header(std::string_view lower_name) const;
};

// The request bytes: request line, Host, User-Agent, Authorization (basic
// from options or the URL's userinfo, else bearer), Content-Type and
// Content-Length when there is a body (always for POST/PUT), the extra
// headers, Connection: close.
std::string serialize_request(std::string_view method, const Url& url, std::string_view content_type,
                              std::string_view body, const ClientOptions& opts);

// Incremental response parser: feed() what arrived, finish() when the peer
// closed. Handles 1xx interim responses, Content-Length, chunked (trailers
// skipped) and read-until-close bodies, responses without a body (HEAD,
// 1xx, 204, 304). Once the body exceeds max_body_bytes it stops with
// body_truncated set (the caller just closes the connection).
class ResponseParser {
 public:
  enum class State { kNeedMore, kDone, kError };
  explicit ResponseParser(size_t max_body_bytes, bool head_request = false)
      : max_body_(max_body_bytes), head_(head_request) {}
  State feed(std::string_view bytes);
  State finish();  // end of stream
  State state() const { return state_; }
  const std::string& error() const { return error_; }
  Response& response() { return resp_; }

 private:
  enum class Phase { kHead, kFixed, kChunkSize, kChunkData, kChunkDataEnd, kTrailers, kToClose, kDone };
  State fail(std::string msg);
  State step();  // consumes from buf_ as far as possible
  bool parse_head(std::string_view head);
  void append_body(std::string_view data);

  size_t max_body_;
  bool head_;
  State state_ = State::kNeedMore;
  Phase phase_ = Phase::kHead;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t remaining_ = 0;
  std::string error_;
  Response resp_;
};

// ---- I/O ---------------------------------------------------------------------

class Client {
 public:
  explicit Client(ClientOptions opts);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The response, whatever its status; an error for anything that kept one
  // from arriving (lookup, connect, TLS, timeout, malformed response). Error
  // messages start with "<METHOD> <url without password>: ".
  Expected<Response> request(std::string_view method, const Url& url, std::string_view content_type,
                             std::string_view body) const;
  Expected<Response> post(const Url& url, std::string_view content_type, std::string_view body) const {
    return request("POST", url, content_type, body);
  }
  Expected<Response> get(const Url& url) const { return request("GET", url, {}, {}); }

  // Builds the TLS context now (loads the CA file); requests do it lazily.
  Status prepare_tls() const;
  const ClientOptions& options() const { return opts_; }

 private:
  struct Tls;
  ClientOptions opts_;
  mutable std::mutex tls_mu_;
  mutable std::unique_ptr<Tls> tls_;
};

}  // namespace llmon::notify::http
