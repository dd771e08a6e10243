// HTTP/1.1 request parsing (RFC 9112 subset) and the Request/Response values
// handlers see. The parser is pure: it consumes bytes from a buffer and says
// whether a whole request is there, needs more bytes, or is bad (with the
// status to answer: 400, 413, 414, 431, 501, 505). Bodies need Content-Length;
// chunked request bodies are refused with 411/501. No I/O here.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::http {

struct Request {
  std::string method;   // "GET"
  std::string target;   // "/metrics?x=1"
  std::string path;     // "/metrics" (percent-decoding left to handlers)
  std::string query;    // "x=1"
  int version_minor = 1;  // HTTP/1.<minor>
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  // Value of the first header with that (lower-case) name, or "".
  std::string_view header(std::string_view lower_name) const;
  bool keep_alive() const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set, sent instead of `body` without copying (cached pages).
  std::shared_ptr<const std::string> shared_body;
  bool head_only = false;  // HEAD: headers with the body's length, no body

  const std::string& payload() const { return shared_body ? *shared_body : body; }
};

struct ParseLimits {
  size_t max_target_bytes = 8192;
  size_t max_header_bytes = 16384;  // request line + all header lines
  size_t max_header_line_bytes = 8192;  // one header line
  size_t max_body_bytes = 1 << 20;
};

enum class ParseState { kComplete, kNeedMore, kError };

struct ParseResult {
  ParseState state = ParseState::kNeedMore;
  size_t consumed = 0;  // bytes of the buffer this request used (kComplete)
  int error_status = 0;  // kError: the status to answer with
  std::string error;     // kError: why
};

// Parses one request from the start of buf into req.
ParseResult parse_request(std::string_view buf, const ParseLimits& limits, Request& req);

std::string_view reason_phrase(int status);
// Serialises the status line and headers (Content-Length, Content-Type, Connection).
std::string response_head(const Response& res, bool keep_alive);

}  // namespace llmon::http
