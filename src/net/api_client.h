// A tiny blocking HTTP/1.1 client for `llmon query` (and other commands that
// call a running agent): one GET per connection (Connection: close), plain
// http only, a deadline on every wait, errors as values. The response parser
// is pure (Content-Length, chunked, or read-to-close bodies), so it is tested
// on literal bytes. Not the tests' client (tests/support/http_client.h), which
// stays independent of this code. Thread-safe: no shared state.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace llmon::net {

struct HttpUrl {
  std::string host;  // "127.0.0.1", "gpu01", "::1" (no brackets)
  int port = 80;
  std::string base_path;  // "" or "/prefix" (no trailing '/')
};

// "http://host[:port][/prefix]" (the scheme may be left off); https and
// user info are refused with a message naming the URL.
Expected<HttpUrl> parse_http_url(std::string_view url);
// The URL to reach an agent listening on `listen_address` ("0.0.0.0:8747",
// ":8747", "[::]:8747" -> the loopback address of that family).
std::string url_for_listen_address(std::string_view listen_address);

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::string_view header(std::string_view lower_name) const;
};

// Parses a complete response as read until the server closed the connection.
// Errors name what is wrong ("truncated body: 10 of 20 bytes", ...).
Expected<HttpResponse> parse_http_response(std::string_view bytes);

// application/x-www-form-urlencoded encoding of one value (RFC 3986
// unreserved characters kept, space as %20).
std::string url_encode(std::string_view s);

// GET url.base_path + path_and_query. Errors: resolution, connection
// ("connection refused"), timeout, malformed response.
Expected<HttpResponse> http_get(const HttpUrl& url, std::string_view path_and_query, int timeout_ms);

}  // namespace llmon::net
