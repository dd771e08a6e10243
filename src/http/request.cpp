#include "http/request.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace llmon::http {
namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

ParseResult fail(int status, std::string why) {
  ParseResult r;
  r.state = ParseState::kError;
  r.error_status = status;
  r.error = std::move(why);
  return r;
}

// Where the head ends: the offset of the '\n' that ends its last line (or the
// request line) and the length of the head with the empty line after it, or
// npos. The search starts at `from` (a '\n' before it was looked at).
std::pair<size_t, size_t> find_head_end(std::string_view buf, size_t from) {
  for (size_t p = buf.find('\n', from); p != std::string_view::npos; p = buf.find('\n', p + 1)) {
    if (p + 1 < buf.size() && buf[p + 1] == '\n') return {p, p + 2};
    if (p + 2 < buf.size() && buf[p + 1] == '\r' && buf[p + 2] == '\n') return {p, p + 3};
  }
  return {std::string_view::npos, 0};
}

}  // namespace

std::string_view Request::header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return {};
}

bool Request::keep_alive() const {
  std::string_view c = header("connection");
  if (version_minor == 0) return base::iequals(c, "keep-alive");
  return !base::iequals(c, "close");
}

ParseResult parse_request(std::string_view buf, const ParseLimits& limits, Request& req, size_t resume) {
  auto [end, head_len] = find_head_end(buf, std::min(resume, buf.size()));
  if (end == std::string_view::npos) {
    // Go's limit counts every byte of the head: once this many are in
    // without its end, it cannot fit.
    if (buf.size() >= limits.max_header_bytes) return fail(431, "request header too large");
    if (buf.size() > limits.max_target_bytes + 32 && buf.find('\n') == std::string_view::npos)
      return fail(414, "request target too long");
    ParseResult more;
    // A '\n' in the last two bytes may still start the empty line.
    more.resume = buf.size() >= 2 ? buf.size() - 2 : 0;
    return more;
  }
  if (head_len > limits.max_header_bytes) return fail(431, "request header too large");

  req = Request{};
  base::LineIterator lines(buf.substr(0, end));
  std::string_view line;
  lines.next(line);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Request line: METHOD SP target SP HTTP/1.x
  size_t sp1 = line.find(' ');
  size_t sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return fail(400, "malformed request line");
  std::string_view method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1),
                   version = line.substr(sp2 + 1);
  if (method.empty()) return fail(400, "empty method");
  for (char c : method)
    if (!is_token_char(c)) return fail(400, "malformed method");
  if (target.size() > limits.max_target_bytes) return fail(414, "request target too long");
  if (target.empty() || (target[0] != '/' && target != "*")) return fail(400, "request target must start with /");
  for (char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return fail(400, "invalid character in request target");
  if (version == "HTTP/1.1")
    req.version_minor = 1;
  else if (version == "HTTP/1.0")
    req.version_minor = 0;
  else if (base::starts_with(version, "HTTP/"))
    return fail(505, "HTTP version not supported");
  else
    return fail(400, "malformed HTTP version");
  req.method.assign(method);
  req.target.assign(target);
  size_t q = target.find('?');
  req.path.assign(target.substr(0, q));
  if (q != std::string_view::npos) req.query.assign(target.substr(q + 1));

  while (lines.next(line)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.size() > limits.max_header_line_bytes) return fail(431, "request header line too large");
    if (line[0] == ' ' || line[0] == '\t') return fail(400, "obsolete header line folding");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return fail(400, "malformed header line");
    std::string name(line.substr(0, colon));
    for (char& c : name) {
      if (!is_token_char(c)) return fail(400, "invalid header name");
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    req.headers.emplace_back(std::move(name), std::string(base::trim(line.substr(colon + 1))));
  }

  if (!req.header("transfer-encoding").empty()) return fail(501, "chunked request bodies are not supported");
  size_t body_len = 0;
  if (std::string_view cl = req.header("content-length"); !cl.empty()) {
    auto n = base::parse_u64(cl);
    if (!n) return fail(400, "invalid Content-Length");
    if (*n > limits.max_body_bytes) return fail(413, "request body too large");
    body_len = static_cast<size_t>(*n);
  }
  if (buf.size() < head_len + body_len) {
    ParseResult more;
    more.need_bytes = head_len + body_len;
    return more;
  }
  req.body.assign(buf.substr(head_len, body_len));
  ParseResult r;
  r.state = ParseState::kComplete;
  r.consumed = head_len + body_len;
  return r;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 422:
      return "Unprocessable Content";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
  }
  return "Unknown";
}

std::string response_head(const Response& res, bool keep_alive) {
  std::string h;
  h.reserve(256);
  h += "HTTP/1.1 ";
  h += std::to_string(res.status);
  h += ' ';
  h += reason_phrase(res.status);
  h += "\r\nContent-Type: ";
  h += res.content_type;
  h += "\r\nContent-Length: ";
  h += std::to_string(res.payload().size());
  for (const auto& [k, v] : res.headers) {
    h += "\r\n";
    h += k;
    h += ": ";
    h += v;
  }
  h += keep_alive ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\nConnection: close\r\n\r\n";
  return h;
}

}  // namespace llmon::http
