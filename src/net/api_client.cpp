// Agent URLs and `llmon query`'s GET over the HTTP client; see api_client.h.
#include "net/api_client.h"

#include <cstdint>
#include <cstring>
#include <variant>

#include "base/strings.h"
#include "net/ascii.h"
#include "net/http_client.h"

namespace llmon::net {
namespace {

// "host:port", the IPv6 host bracketed: how this command's errors name the agent.
std::string where(const HttpUrl& url) {
  return (url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port);
}

// This command's wording of a malformed or truncated answer.
std::string parse_message(const http::ParseError& e) {
  using Kind = http::ParseError::Kind;
  switch (e.kind) {
    case Kind::kClosedBeforeResponse:
      return "the server closed the connection without answering";
    case Kind::kClosedInHead:
      return "truncated response header";
    case Kind::kClosedInBody:
      return "truncated body: " + std::to_string(e.have) + " of " + std::to_string(e.want) + " bytes";
    case Kind::kClosedInChunkedBody:
      return "truncated chunked body";
    case Kind::kBadStatusLine:
      return "not an HTTP/1.x response: \"" + e.subject.substr(0, 60) + "\"";
    case Kind::kBadStatusCode:
      return "bad status line \"" + e.subject.substr(0, 60) + "\"";
    case Kind::kBadHeaderLine:
      return "bad header line \"" + e.subject + "\"";
    default:
      return e.message;  // "bad Content-Length \"x\"", "bad chunk size \"zz\"", ...
  }
}

// This command's wording of an exchange that got no answer.
std::string failure_message(const http::Failure& f, const HttpUrl& url) {
  using Stage = http::Failure::Stage;
  const std::string at = where(url);
  switch (f.stage) {
    case Stage::kConnect: {
      const ConnectError& e = std::get<ConnectError>(f.cause);
      if (e.resolve) return "cannot resolve " + url.host + ": " + e.resolve->message();
      std::string why = "no address";
      if (!e.attempts.empty()) {
        const ConnectAttempt& last = e.attempts.back();
        why = last.failure == ConnectAttempt::Failure::kTimeout  ? std::string("connection timed out")
              : last.failure == ConnectAttempt::Failure::kSocket ? std::string("socket: ") + std::strerror(last.error)
                                                                 : std::string(std::strerror(last.error));
      }
      return "cannot connect to " + at + ": " + why;
    }
    case Stage::kSend: {
      const IoError& e = std::get<IoError>(f.cause);
      if (e.kind == IoError::Kind::kSystem) return "sending the request to " + at + ": " + std::strerror(e.error);
      return "timed out sending the request to " + at;
    }
    case Stage::kReceive: {
      const IoError& e = std::get<IoError>(f.cause);
      if (e.kind == IoError::Kind::kTimeout) return "timed out waiting for " + at + " to answer";
      if (e.kind == IoError::Kind::kPoll) return std::string("poll: ") + std::strerror(e.error);
      return "reading the answer of " + at + ": " + std::strerror(e.error);
    }
    case Stage::kResponse:
      return "answer of " + at + ": " + parse_message(std::get<http::ParseError>(f.cause));
    case Stage::kTlsSetup:
      return "TLS set-up for " + at + ": " + std::get<TlsSetupError>(f.cause).message();
    case Stage::kTlsHandshake:
      return at + ": " + f.message;  // the client's wording: "TLS handshake: certificate verify failed" ...
  }
  return f.message;
}

}  // namespace

Expected<HttpUrl> parse_http_url(std::string_view url) {
  std::string_view rest = url;
  bool https = false;
  auto bad = [&](const std::string& why) { return Status::error("invalid URL \"" + std::string(url) + "\": " + why); };
  if (size_t sep = rest.find("://"); sep != std::string_view::npos) {
    std::string scheme = ascii_lower(rest.substr(0, sep));
    if (scheme != "http" && scheme != "https") return bad("the scheme must be http or https");
    https = scheme == "https";
    rest.remove_prefix(sep + 3);
  }
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos)
    return bad("user info is not supported (credentials go in --http.config.file)");
  if (authority.empty()) return bad("no host");
  HttpUrl u;
  u.https = https;
  u.port = https ? 443 : 80;
  std::string_view port_text;
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '['");
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return bad("junk after ']'");
      port_text = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (u.host.empty()) return bad("no host");
  if (!port_text.empty()) {
    auto p = base::parse_i64(port_text);
    if (!p || *p <= 0 || *p > 65535) return bad("bad port \"" + std::string(port_text) + "\"");
    u.port = static_cast<int>(*p);
  }
  if (path.find_first_of("?#") != std::string_view::npos) return bad("a query or fragment is not allowed");
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  u.base_path = std::string(path);
  return u;
}

std::string url_text(const HttpUrl& url) {
  const bool v6 = url.host.find(':') != std::string::npos;
  return std::string(url.https ? "https://" : "http://") + (v6 ? "[" + url.host + "]" : url.host) + ":" +
         std::to_string(url.port) + url.base_path;
}

std::string url_for_listen_address(std::string_view listen_address) {
  std::string_view a = listen_address;
  std::string host, port;
  if (!a.empty() && a[0] == '[') {
    size_t close = a.find(']');
    host = std::string(a.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
    if (close != std::string_view::npos && close + 1 < a.size() && a[close + 1] == ':')
      port = std::string(a.substr(close + 2));
    if (host.empty() || host == "::") host = "::1";
    return "http://[" + host + "]" + (port.empty() ? "" : ":" + port);
  }
  size_t colon = a.rfind(':');
  host = std::string(a.substr(0, colon));
  if (colon != std::string_view::npos) port = std::string(a.substr(colon + 1));
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  return "http://" + host + (port.empty() ? "" : ":" + port);
}

Expected<HttpResponse> parse_http_response(std::string_view bytes) {
  http::ResponseParser parser(SIZE_MAX);
  auto state = parser.feed(bytes);
  if (state == http::ResponseParser::State::kNeedMore) state = parser.finish();
  if (state == http::ResponseParser::State::kError) return Status::error(parse_message(parser.parse_error()));
  return std::move(parser.response());
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

Expected<HttpResponse> http_get(const HttpUrl& url, std::string_view path_and_query, int timeout_ms) {
  http::Url target;
  target.scheme = url.https ? "https" : "http";
  target.host = url.host;
  target.port = static_cast<uint16_t>(url.port);
  target.target = url.base_path + std::string(path_and_query);
  http::ClientOptions opts = url.client;  // auth and TLS (--http.config.file)
  opts.connect_timeout_ms = timeout_ms;  // one deadline for everything
  opts.timeout_ms = timeout_ms;
  opts.max_response_body_bytes = SIZE_MAX;
  opts.headers.push_back({"Accept", "application/json"});
  opts.only_configured_families = false;
  opts.reset_ends_response = true;
  auto r = http::Client(std::move(opts)).exchange("GET", target, {}, {});
  if (!r) return Status::error(failure_message(r.error(), url));
  return std::move(*r);
}

}  // namespace llmon::net
