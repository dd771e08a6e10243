// URL parsing and path joining (RFC 3986); see url.h.
#include "net/url.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "net/ascii.h"

namespace llmon::net::http {
namespace {

bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = hex_digit_value(in[i + 1]), lo = hex_digit_value(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

// The URL as it may appear in an error: the password replaced.
std::string redact_text(std::string_view text) {
  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return std::string(text);
  const size_t auth_start = scheme_end + 3;
  const size_t auth_end = std::min(text.find_first_of("/?#", auth_start), text.size());
  const std::string_view auth = text.substr(auth_start, auth_end - auth_start);
  const size_t at = auth.rfind('@');
  if (at == std::string_view::npos) return std::string(text);
  const size_t colon = auth.substr(0, at).find(':');
  if (colon == std::string_view::npos) return std::string(text);
  return std::string(text.substr(0, auth_start + colon + 1)) + "xxxxx" + std::string(text.substr(auth_start + at));
}

bool valid_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

}  // namespace

std::string Url::host_header() const {
  std::string h = host_is_ipv6() ? "[" + host + "]" : host;
  const uint16_t def = is_tls() ? 443 : 80;
  if (port != def) h += ":" + std::to_string(port);
  return h;
}

std::string Url::redacted() const {
  return scheme + "://" + host_header() + target;
}

Expected<Url> parse_url(std::string_view text) {
  auto err = [&](std::string_view what) {
    return Status::error("URL \"" + redact_text(text) + "\": " + std::string(what));
  };
  if (text.empty()) return Status::error("URL is empty");
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F) return err("contains a space, control or non-ASCII byte (percent-encode it)");
  }
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos) return err("missing \"scheme://\"");
  Url url;
  url.scheme = ascii_lower(text.substr(0, sep));
  if (url.scheme != "http" && url.scheme != "https")
    return err("scheme \"" + url.scheme + "\" is not supported (http or https)");
  const size_t auth_start = sep + 3;
  const size_t auth_end = std::min(text.find_first_of("/?#", auth_start), text.size());
  std::string_view auth = text.substr(auth_start, auth_end - auth_start);
  if (const size_t at = auth.rfind('@'); at != std::string_view::npos) {
    const std::string_view info = auth.substr(0, at);
    const size_t colon = info.find(':');
    if (!percent_decode(info.substr(0, colon), url.username) ||
        (colon != std::string_view::npos && !percent_decode(info.substr(colon + 1), url.password)))
      return err("bad percent-encoding in the user information");
    url.has_userinfo = true;
    auth.remove_prefix(at + 1);
  }
  std::string_view host, port;
  bool has_port = false;
  if (!auth.empty() && auth.front() == '[') {
    const size_t close = auth.find(']');
    if (close == std::string_view::npos) return err("unterminated '[' in the host");
    host = auth.substr(1, close - 1);
    if (host.empty() || host.find(':') == std::string_view::npos ||
        host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos)
      return err("bad IPv6 address in the host");
    const std::string_view after = auth.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return err("unexpected text after ']' in the host");
      port = after.substr(1);
      has_port = true;
    }
  } else {
    const size_t colon = auth.rfind(':');
    host = auth.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = auth.substr(colon + 1);
      has_port = true;
    }
    for (char c : host)
      if (!valid_host_char(c)) return err(std::string("invalid character '") + c + "' in the host");
  }
  if (host.empty()) return err("missing host");
  url.host = ascii_lower(host);
  url.port = url.is_tls() ? 443 : 80;
  if (has_port && !port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
      return err("port \"" + std::string(port) + "\" is not a number in 1..65535");
    url.port = static_cast<uint16_t>(value);
  }
  std::string_view rest = text.substr(auth_end);
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  if (rest.empty() || rest.front() == '?') url.target = "/";
  url.target += rest;
  return url;
}

Url join_path(const Url& base, std::string_view path) {
  std::string_view prefix = base.target;
  if (const size_t q = prefix.find('?'); q != std::string_view::npos) prefix = prefix.substr(0, q);
  const std::string joined = std::string(prefix) + "/" + std::string(path);
  std::vector<std::string_view> parts;
  std::string_view rest = joined;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view seg = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(seg);
  }
  Url out = base;
  out.target.clear();
  for (const auto& p : parts) {
    out.target += '/';
    out.target += p;
  }
  if (out.target.empty()) out.target = "/";
  return out;
}

}  // namespace llmon::net::http
