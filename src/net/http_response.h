// HTTP/1.1 responses (RFC 9112) as the client reads them: the value and an
// incremental parser fed whatever bytes arrived. It handles 1xx interim
// responses, Content-Length (repeated equal values allowed), chunked
// (extensions and trailers skipped) and read-until-close bodies, responses
// without a body (HEAD, 1xx, 204, 304), and bare-LF line ends. Bodies are
// bounded: past max_body_bytes the parser stops with body_truncated set (the
// caller just closes the connection). The head is bounded to 64 KiB. Errors
// come as a kind with the parser's wording, so a caller may word them its
// own way. Pure: no I/O; one parser per response, one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/http_headers.h"

namespace llmon::net::http {

struct Response {
  int status = 0;
  std::string reason;
  Headers headers;   // names lower-cased, in order received
  std::string body;  // de-chunked; at most max_response_body_bytes
  bool body_truncated = false;

  std::string_view header(std::string_view lower_name) const { return find_header(headers, lower_name); }
};

struct ParseError {
  enum class Kind {
    kClosedBeforeResponse,  // the stream ended before any byte
    kClosedInHead,          // ... inside the status line or headers
    kClosedInBody,          // ... before Content-Length bytes (have, want)
    kClosedInChunkedBody,   // ... inside the chunked body
    kHeadTooLarge,          // head or trailers over 64 KiB
    kBadStatusLine,         // not "HTTP/1.x ..." (subject: the line)
    kBadStatusCode,         // no 3-digit code in 100..999 (subject: the line)
    kBadHeaderLine,         // no colon (subject: the line)
    kBadContentLength,      // (subject: the header value)
    kBadChunkSize,          // (subject: the size line, extensions cut)
    kChunkLineTooLong,      // a chunk-size line over 4 KiB
    kChunkNotTerminated,    // chunk data not followed by CRLF
  };
  Kind kind = Kind::kClosedBeforeResponse;
  std::string message;  // the parser's wording: "connection closed before any response", ...
  std::string subject;  // the offending text, uncut (kinds above say which)
  uint64_t have = 0;    // kClosedInBody: body bytes received ...
  uint64_t want = 0;    // ... of the Content-Length
};

// Incremental response parser: feed() what arrived, finish() when the peer
// closed.
class ResponseParser {
 public:
  enum class State { kNeedMore, kDone, kError };
  explicit ResponseParser(size_t max_body_bytes, bool head_request = false)
      : max_body_(max_body_bytes), head_(head_request) {}
  State feed(std::string_view bytes);
  State finish();  // end of stream
  State state() const { return state_; }
  const std::string& error() const { return error_.message; }
  const ParseError& parse_error() const { return error_; }
  Response& response() { return resp_; }

 private:
  enum class Phase { kHead, kFixed, kChunkSize, kChunkData, kChunkDataEnd, kTrailers, kToClose, kDone };
  State fail(ParseError::Kind kind, std::string msg, std::string_view subject = {});
  State step();  // consumes from buf_ as far as possible
  bool parse_head(std::string_view head);
  void append_body(std::string_view data);
  // Moves up to remaining_ bytes of `avail` into the body; false when none.
  bool take_counted(std::string_view avail);
  // Consumes the next LF-ended line of `avail` (OWS and CR trimmed); none
  // while it is incomplete, and failed once over `limit` bytes wait.
  std::optional<std::string_view> take_line(std::string_view avail, size_t limit, ParseError::Kind too_long_kind,
                                            const char* too_long);

  size_t max_body_;
  bool head_;
  State state_ = State::kNeedMore;
  Phase phase_ = Phase::kHead;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t remaining_ = 0;
  ParseError error_;
  Response resp_;
};

}  // namespace llmon::net::http
