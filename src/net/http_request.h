// The HTTP client's options (http_client.h) and the request bytes it sends:
// HTTP/1.1 (RFC 9112), one request per connection (Connection: close).
// serialize_request is pure, so the exact bytes are tested on literals.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "net/http_headers.h"
#include "net/tls_context.h"
#include "net/url.h"

namespace llmon::net::http {

struct ClientOptions {
  int connect_timeout_ms = 5000;               // name lookup and TCP connect (within timeout_ms)
  int timeout_ms = 10000;                      // the whole exchange, connecting included
  size_t max_response_body_bytes = 64 * 1024;  // longer bodies are cut (body_truncated)
  bool tls_insecure_skip_verify = false;
  std::string tls_ca_file;          // PEM bundle; empty: OpenSSL's default store
  std::string tls_server_name;      // SNI and the name verified; empty: the URL's host
  std::string tls_cert_file;        // client certificate (PEM), with tls_key_file
  std::string tls_key_file;
  std::string basic_auth_username;  // when set, wins over the URL's userinfo
  std::string basic_auth_password;
  std::string bearer_token;  // "Authorization: Bearer …"; ignored when basic auth is set
  std::string user_agent = "llmon";
  Headers headers;  // extra request headers, sent as given
  // Resolve only the address families this host has an address of (AI_ADDRCONFIG).
  bool only_configured_families = true;
  // A connection reset after part of the response arrived ends the body as
  // a close would (the body then stands if its framing is complete).
  bool reset_ends_response = false;

  TlsOptions tls_options() const;
};

// The request bytes: request line, Host, User-Agent, Authorization (basic
// from options or the URL's userinfo, else bearer), Content-Type and
// Content-Length when there is a body (always for POST/PUT), the extra
// headers, Connection: close. CR and LF in header values become spaces.
std::string serialize_request(std::string_view method, const Url& url, std::string_view content_type,
                              std::string_view body, const ClientOptions& opts);

}  // namespace llmon::net::http
