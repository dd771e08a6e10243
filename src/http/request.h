// HTTP/1.1 request parsing (RFC 9112 subset) and the Request/Response values
// handlers see. The parser is pure: it consumes bytes from a buffer and says
// whether a whole request is there, needs more bytes, or is bad (with the
// status to answer: 400, 413, 414, 431, 501, 505). Bodies need Content-Length;
// chunked request bodies are refused with 411/501. No I/O here.
// Size limits default to Go net/http's, which Prometheus's server uses: the
// head (request line, header lines, blank line) up to 1 MiB + 4 KiB, 431
// beyond, no separate limit on the URL or one line (docs/api.md).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::http {

struct Request {
  std::string method;                                        // "GET"
  std::string target;                                        // "/metrics?x=1"
  std::string path;                                          // "/metrics" (percent-decoding left to handlers)
  std::string query;                                         // "x=1"
  int version_minor = 1;                                     // HTTP/1.<minor>
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

// Go's http.DefaultMaxHeaderBytes (1 MiB) plus the 4096 bytes of bufio slack
// its server allows on top: the most bytes a request's head may take, the
// blank line that ends it included. One byte more and Go answers 431.
inline constexpr size_t kGoMaxHeadBytes = (size_t{1} << 20) + 4096;

struct ParseLimits {
  size_t max_header_bytes = kGoMaxHeadBytes;       // the whole head, its terminator included: 431 beyond
  size_t max_target_bytes = kGoMaxHeadBytes;       // 414 beyond; at the defaults 431 comes first
  size_t max_header_line_bytes = kGoMaxHeadBytes;  // one header line: 431 beyond
  size_t max_body_bytes = 1 << 20;                 // Content-Length: 413 beyond
};

enum class ParseState { kComplete, kNeedMore, kError };

struct ParseResult {
  ParseState state = ParseState::kNeedMore;
  size_t consumed = 0;   // bytes of the buffer this request used (kComplete)
  int error_status = 0;  // kError: the status to answer with
  std::string error;     // kError: why
  // kNeedMore: when only body bytes are missing, the buffer size at which
  // the request is complete (another call before that answers the same);
  // 0 while the head is incomplete.
  size_t need_bytes = 0;
  // kNeedMore: pass back as `resume` with the same bytes plus more, so the
  // search for the head's end does not start over (a slow 1 MiB head costs
  // linear time, not quadratic).
  size_t resume = 0;
};

// Parses one request from the start of buf into req. The head ends at the
// first empty line ("\r\n" or a bare "\n", as Go reads lines). resume: 0, or
// ParseResult::resume of the previous kNeedMore call on a prefix of buf.
ParseResult parse_request(std::string_view buf, const ParseLimits& limits, Request& req, size_t resume = 0);

std::string_view reason_phrase(int status);
// Serialises the status line and headers (Content-Length, Content-Type, Connection).
std::string response_head(const Response& res, bool keep_alive);

}  // namespace llmon::http
