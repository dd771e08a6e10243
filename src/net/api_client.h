// `llmon query`'s front end to the HTTP client (http_client.h) for commands
// that call a running agent: agent URLs (http or https, an optional path
// prefix, the listen address turned into a URL; auth and TLS options), one GET with one deadline
// over everything (lookup included), and this command's wording of
// failures ("cannot connect to HOST:PORT: ...", "answer of HOST:PORT: ...").
// Responses are parsed by http_response.h's parser. Not the tests' client
// (tests/support/http_client.h), which stays independent of this code.
// Thread-safe: no shared state.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "net/http_request.h"
#include "net/http_response.h"

namespace llmon::net {

struct HttpUrl {
  std::string host;  // "127.0.0.1", "gpu01", "::1" (no brackets)
  int port = 80;
  std::string base_path;  // "" or "/prefix" (no trailing '/')
  bool https = false;
  // Auth, TLS files and extra headers for every request to this agent (an
  // agent behind --web.config.file); timeouts and Accept are http_get's.
  http::ClientOptions client;
};

// "http[s]://host[:port][/prefix]" (the scheme may be left off: http; the
// port defaults to 80 or 443); user info is refused with a message naming
// the URL (credentials come from --http.config.file).
Expected<HttpUrl> parse_http_url(std::string_view url);
// "https://[::1]:8747/prefix": the URL back as text, for messages.
std::string url_text(const HttpUrl& url);
// The URL to reach an agent listening on `listen_address` ("0.0.0.0:8747",
// ":8747", "[::]:8747" -> the loopback address of that family).
std::string url_for_listen_address(std::string_view listen_address);

using HttpResponse = http::Response;

// Parses a complete response as read until the server closed the connection
// (no body limit). Errors name what is wrong ("truncated body: 10 of 20
// bytes", ...).
Expected<HttpResponse> parse_http_response(std::string_view bytes);

// application/x-www-form-urlencoded encoding of one value (RFC 3986
// unreserved characters kept, space as %20).
std::string url_encode(std::string_view s);

// GET url.base_path + path_and_query. Errors: resolution, connection
// ("connection refused"), timeout, malformed response.
Expected<HttpResponse> http_get(const HttpUrl& url, std::string_view path_and_query, int timeout_ms);

}  // namespace llmon::net
