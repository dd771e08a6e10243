// Pure parts of the HTTP client (see http_post.h): URLs (RFC 3986), request
// serialisation and the incremental response parser (RFC 9112).
#include <algorithm>
#include <charconv>

#include "notify/http_post.h"

namespace llmon::notify::http {
namespace {

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kMaxChunkLineBytes = 4096;

char lower_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower_char(c);
  return out;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = hex_value(in[i + 1]), lo = hex_value(in[i + 2]);
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
  url.scheme = lower(text.substr(0, sep));
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
  url.host = lower(host);
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

std::string base64_encode(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v =
        (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (const size_t left = in.size() - i; left > 0) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (left == 2) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string_view Response::header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return {};
}

std::string serialize_request(std::string_view method, const Url& url, std::string_view content_type,
                              std::string_view body, const ClientOptions& opts) {
  // A header value may not end a line early (request splitting).
  auto clean = [](std::string_view v) {
    std::string s(v);
    for (char& c : s)
      if (c == '\r' || c == '\n') c = ' ';
    return s;
  };
  std::string r;
  r.reserve(256 + body.size());
  r.append(method).append(" ").append(url.target).append(" HTTP/1.1\r\n");
  r.append("Host: ").append(url.host_header()).append("\r\n");
  if (!opts.user_agent.empty()) r.append("User-Agent: ").append(clean(opts.user_agent)).append("\r\n");
  if (!opts.basic_auth_username.empty() || !opts.basic_auth_password.empty()) {
    r.append("Authorization: Basic ")
        .append(base64_encode(opts.basic_auth_username + ":" + opts.basic_auth_password))
        .append("\r\n");
  } else if (url.has_userinfo) {
    r.append("Authorization: Basic ").append(base64_encode(url.username + ":" + url.password)).append("\r\n");
  } else if (!opts.bearer_token.empty()) {
    r.append("Authorization: Bearer ").append(clean(opts.bearer_token)).append("\r\n");
  }
  const bool has_body = !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
  if (has_body) {
    if (!content_type.empty()) r.append("Content-Type: ").append(clean(content_type)).append("\r\n");
    r.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  for (const auto& [k, v] : opts.headers) r.append(clean(k)).append(": ").append(clean(v)).append("\r\n");
  r.append("Connection: close\r\n\r\n");
  r.append(body);
  return r;
}

// ---- ResponseParser ------------------------------------------------------------

ResponseParser::State ResponseParser::fail(std::string msg) {
  error_ = std::move(msg);
  state_ = State::kError;
  return state_;
}

ResponseParser::State ResponseParser::feed(std::string_view bytes) {
  if (state_ != State::kNeedMore) return state_;
  buf_.append(bytes);
  const State s = step();
  if (pos_ > 0 && (pos_ == buf_.size() || pos_ > 4096)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return s;
}

ResponseParser::State ResponseParser::finish() {
  if (state_ != State::kNeedMore) return state_;
  switch (phase_) {
    case Phase::kToClose:
    case Phase::kDone:
      phase_ = Phase::kDone;
      state_ = State::kDone;
      return state_;
    case Phase::kHead:
      return fail(buf_.size() == pos_ ? "connection closed before any response"
                                      : "connection closed inside the response head");
    case Phase::kFixed:
      return fail("connection closed with " + std::to_string(remaining_) + " bytes of the body (Content-Length " +
                  std::string(resp_.header("content-length")) + ") missing");
    default:
      return fail("connection closed inside the chunked body");
  }
}

void ResponseParser::append_body(std::string_view data) {
  const size_t room = max_body_ - std::min(max_body_, resp_.body.size());
  if (data.size() > room) {
    resp_.body.append(data.substr(0, room));
    resp_.body_truncated = true;
    phase_ = Phase::kDone;
    return;
  }
  resp_.body.append(data);
}

bool ResponseParser::parse_head(std::string_view head) {
  resp_.headers.clear();
  size_t eol = head.find('\n');
  std::string_view status_line = trim_ows(head.substr(0, eol));
  if (status_line.substr(0, 7) != "HTTP/1." || status_line.size() < 12 || status_line[8] != ' ') {
    fail("malformed status line \"" + std::string(status_line.substr(0, 64)) + "\"");
    return false;
  }
  int code = 0;
  const std::string_view code_text = status_line.substr(9, 3);
  auto [end, ec] = std::from_chars(code_text.data(), code_text.data() + 3, code);
  if (ec != std::errc() || end != code_text.data() + 3 || code < 100 || code > 999 ||
      (status_line.size() > 12 && status_line[12] != ' ')) {
    fail("malformed status code in \"" + std::string(status_line.substr(0, 64)) + "\"");
    return false;
  }
  resp_.status = code;
  resp_.reason = status_line.size() > 13 ? std::string(status_line.substr(13)) : std::string();
  std::string_view rest = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 1);
  while (!rest.empty()) {
    eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if ((line.front() == ' ' || line.front() == '\t') && !resp_.headers.empty()) {  // obsolete line folding
      resp_.headers.back().second += " ";
      resp_.headers.back().second += trim_ows(line);
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      fail("malformed header line \"" + std::string(line.substr(0, 64)) + "\"");
      return false;
    }
    resp_.headers.emplace_back(lower(line.substr(0, colon)), std::string(trim_ows(line.substr(colon + 1))));
  }
  return true;
}

ResponseParser::State ResponseParser::step() {
  for (;;) {
    const std::string_view avail = std::string_view(buf_).substr(pos_);
    switch (phase_) {
      case Phase::kHead: {
        size_t end = avail.find("\r\n\r\n");
        size_t skip = 4;
        if (const size_t lf = avail.find("\n\n");
            lf != std::string_view::npos && (end == std::string_view::npos || lf < end)) {
          end = lf;
          skip = 2;
        }
        if (end == std::string_view::npos) {
          if (avail.size() > kMaxHeadBytes) return fail("response head larger than 64 KiB");
          return state_;
        }
        if (!parse_head(avail.substr(0, end))) return state_;
        pos_ += end + skip;
        const int code = resp_.status;
        if (code / 100 == 1 && code != 101) continue;  // interim response: the real one follows
        std::string_view te = resp_.header("transfer-encoding");
        std::string_view cl = resp_.header("content-length");
        if (head_ || code / 100 == 1 || code == 204 || code == 304) {
          phase_ = Phase::kDone;
        } else if (!te.empty()) {
          const std::string l = lower(te);
          const bool chunked = l.size() >= 7 && l.compare(l.size() - 7, 7, "chunked") == 0;
          phase_ = chunked ? Phase::kChunkSize : Phase::kToClose;
        } else if (!cl.empty()) {
          // "5, 5" (a repeated header folded) is allowed when all values agree.
          uint64_t value = 0;
          bool first = true;
          while (!cl.empty()) {
            const size_t comma = cl.find(',');
            const std::string_view part = trim_ows(cl.substr(0, comma));
            uint64_t v = 0;
            auto [e, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
            if (part.empty() || ec != std::errc() || e != part.data() + part.size() || (!first && v != value))
              return fail("bad Content-Length \"" + std::string(resp_.header("content-length")) + "\"");
            value = v;
            first = false;
            cl = comma == std::string_view::npos ? std::string_view() : cl.substr(comma + 1);
          }
          remaining_ = value;
          phase_ = value == 0 ? Phase::kDone : Phase::kFixed;
        } else {
          phase_ = Phase::kToClose;
        }
        continue;
      }
      case Phase::kFixed: {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, avail.size()));
        if (n == 0) return state_;
        remaining_ -= n;
        pos_ += n;
        append_body(avail.substr(0, n));
        if (remaining_ == 0) phase_ = Phase::kDone;
        continue;
      }
      case Phase::kToClose:
        if (avail.empty()) return state_;
        pos_ += avail.size();
        append_body(avail);
        continue;
      case Phase::kChunkSize: {
        const size_t eol = avail.find('\n');
        if (eol == std::string_view::npos) {
          if (avail.size() > kMaxChunkLineBytes) return fail("chunk-size line too long");
          return state_;
        }
        std::string_view line = trim_ows(avail.substr(0, eol));
        line = trim_ows(line.substr(0, line.find(';')));
        uint64_t size = 0;
        auto [e, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
        if (line.empty() || ec != std::errc() || e != line.data() + line.size())
          return fail("bad chunk size \"" + std::string(line.substr(0, 32)) + "\"");
        pos_ += eol + 1;
        remaining_ = size;
        phase_ = size == 0 ? Phase::kTrailers : Phase::kChunkData;
        continue;
      }
      case Phase::kChunkData: {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, avail.size()));
        if (n == 0) return state_;
        remaining_ -= n;
        pos_ += n;
        append_body(avail.substr(0, n));
        if (remaining_ == 0 && phase_ != Phase::kDone) phase_ = Phase::kChunkDataEnd;
        continue;
      }
      case Phase::kChunkDataEnd:
        if (avail.empty() || (avail[0] == '\r' && avail.size() < 2)) return state_;
        if (avail.substr(0, 2) == "\r\n") {
          pos_ += 2;
        } else if (avail[0] == '\n') {
          pos_ += 1;
        } else {
          return fail("chunk data not followed by CRLF");
        }
        phase_ = Phase::kChunkSize;
        continue;
      case Phase::kTrailers: {
        const size_t eol = avail.find('\n');
        if (eol == std::string_view::npos) {
          if (avail.size() > kMaxHeadBytes) return fail("chunked trailers larger than 64 KiB");
          return state_;
        }
        const std::string_view line = trim_ows(avail.substr(0, eol));
        pos_ += eol + 1;
        if (line.empty()) phase_ = Phase::kDone;
        continue;
      }
      case Phase::kDone:
        state_ = State::kDone;
        return state_;
    }
  }
}

}  // namespace llmon::notify::http
