// http(s) URLs for the HTTP client (http_client.h): parsing (RFC 3986, the
// subset Alertmanager's and Prometheus' configuration URLs use), the Host
// header, a printable form without the password, and Go's path.Join for
// API paths under a configured prefix. Pure functions on values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::net::http {

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

}  // namespace llmon::net::http
