// The incremental HTTP/1.1 response parser; see http_response.h.
#include "net/http_response.h"

#include <algorithm>
#include <charconv>

#include "net/ascii.h"

namespace llmon::net::http {
namespace {

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kMaxChunkLineBytes = 4096;

}  // namespace

ResponseParser::State ResponseParser::fail(ParseError::Kind kind, std::string msg, std::string_view subject) {
  error_.kind = kind;
  error_.message = std::move(msg);
  error_.subject = std::string(subject);
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
      if (buf_.size() == pos_)
        return fail(ParseError::Kind::kClosedBeforeResponse, "connection closed before any response");
      return fail(ParseError::Kind::kClosedInHead, "connection closed inside the response head");
    case Phase::kFixed:
      error_.have = resp_.body.size();
      error_.want = resp_.body.size() + remaining_;
      return fail(ParseError::Kind::kClosedInBody, "connection closed with " + std::to_string(remaining_) +
                                                       " bytes of the body (Content-Length " +
                                                       std::string(resp_.header("content-length")) + ") missing");
    default:
      return fail(ParseError::Kind::kClosedInChunkedBody, "connection closed inside the chunked body");
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

bool ResponseParser::take_counted(std::string_view avail) {
  const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, avail.size()));
  if (n == 0) return false;
  remaining_ -= n;
  pos_ += n;
  append_body(avail.substr(0, n));
  return true;
}

std::optional<std::string_view> ResponseParser::take_line(std::string_view avail, size_t limit,
                                                          ParseError::Kind too_long_kind, const char* too_long) {
  const size_t eol = avail.find('\n');
  if (eol == std::string_view::npos) {
    if (avail.size() > limit) fail(too_long_kind, too_long);
    return std::nullopt;
  }
  pos_ += eol + 1;
  return trim_ows(avail.substr(0, eol));
}

bool ResponseParser::parse_head(std::string_view head) {
  resp_.headers.clear();
  size_t eol = head.find('\n');
  std::string_view status_line = trim_ows(head.substr(0, eol));
  if (status_line.substr(0, 7) != "HTTP/1." || status_line.size() < 12 || status_line[8] != ' ') {
    fail(ParseError::Kind::kBadStatusLine, "malformed status line \"" + std::string(status_line.substr(0, 64)) + "\"",
         status_line);
    return false;
  }
  int code = 0;
  const std::string_view code_text = status_line.substr(9, 3);
  auto [end, ec] = std::from_chars(code_text.data(), code_text.data() + 3, code);
  if (ec != std::errc() || end != code_text.data() + 3 || code < 100 || code > 999 ||
      (status_line.size() > 12 && status_line[12] != ' ')) {
    fail(ParseError::Kind::kBadStatusCode,
         "malformed status code in \"" + std::string(status_line.substr(0, 64)) + "\"", status_line);
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
      fail(ParseError::Kind::kBadHeaderLine, "malformed header line \"" + std::string(line.substr(0, 64)) + "\"", line);
      return false;
    }
    resp_.headers.emplace_back(ascii_lower(line.substr(0, colon)), std::string(trim_ows(line.substr(colon + 1))));
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
          if (avail.size() > kMaxHeadBytes)
            return fail(ParseError::Kind::kHeadTooLarge, "response head larger than 64 KiB");
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
          const std::string l = ascii_lower(te);
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
              return fail(ParseError::Kind::kBadContentLength,
                          "bad Content-Length \"" + std::string(resp_.header("content-length")) + "\"",
                          resp_.header("content-length"));
            value = v;
            first = false;
            cl = comma == std::string_view::npos ? std::string_view() : cl.substr(comma + 1);
          }
          remaining_ = value;
          resp_.body.reserve(static_cast<size_t>(std::min<uint64_t>(value, max_body_)));  // no regrowth
          phase_ = value == 0 ? Phase::kDone : Phase::kFixed;
        } else {
          phase_ = Phase::kToClose;
        }
        continue;
      }
      case Phase::kFixed:
        if (!take_counted(avail)) return state_;
        if (remaining_ == 0) phase_ = Phase::kDone;
        continue;
      case Phase::kToClose:
        if (avail.empty()) return state_;
        pos_ += avail.size();
        append_body(avail);
        continue;
      case Phase::kChunkSize: {
        auto size_line =
            take_line(avail, kMaxChunkLineBytes, ParseError::Kind::kChunkLineTooLong, "chunk-size line too long");
        if (!size_line) return state_;
        const std::string_view line = trim_ows(size_line->substr(0, size_line->find(';')));
        uint64_t size = 0;
        auto [e, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
        if (line.empty() || ec != std::errc() || e != line.data() + line.size())
          return fail(ParseError::Kind::kBadChunkSize, "bad chunk size \"" + std::string(line.substr(0, 32)) + "\"",
                      line);
        remaining_ = size;
        phase_ = size == 0 ? Phase::kTrailers : Phase::kChunkData;
        continue;
      }
      case Phase::kChunkData:
        if (!take_counted(avail)) return state_;
        if (remaining_ == 0 && phase_ != Phase::kDone) phase_ = Phase::kChunkDataEnd;
        continue;
      case Phase::kChunkDataEnd:
        if (avail.empty() || (avail[0] == '\r' && avail.size() < 2)) return state_;
        if (avail.substr(0, 2) == "\r\n") {
          pos_ += 2;
        } else if (avail[0] == '\n') {
          pos_ += 1;
        } else {
          return fail(ParseError::Kind::kChunkNotTerminated, "chunk data not followed by CRLF");
        }
        phase_ = Phase::kChunkSize;
        continue;
      case Phase::kTrailers:
        if (auto line = take_line(avail, kMaxHeadBytes, ParseError::Kind::kHeadTooLarge,
                                  "chunked trailers larger than 64 KiB")) {
          if (line->empty()) phase_ = Phase::kDone;
          continue;
        }
        return state_;
      case Phase::kDone:
        state_ = State::kDone;
        return state_;
    }
  }
}

}  // namespace llmon::net::http
