// parse_request's size limits at their boundaries, as Prometheus 2.42's
// server (Go net/http, DefaultMaxHeaderBytes) draws them: a head of
// 1 MiB + 4 KiB bytes, its final empty line included, is taken, one byte
// more is 431, whatever part of the head is long (URL, one header, many).
// Measured against a real `prometheus` on 127.0.0.1: 1 052 672 bytes -> 200,
// 1 052 673 -> 431, for CRLF and bare-LF heads alike. Also: the search for
// the head's end resumes where it stopped, and the body phase says how many
// bytes it waits for.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "http/request.h"

namespace llmon::http {
namespace {

// "GET /x?q=aaa... HTTP/1.1\r\nHost: h\r\n\r\n" of exactly `size` bytes.
std::string head_of_size(size_t size, std::string_view eol = "\r\n") {
  const std::string start = "GET /x?q=";
  const std::string end = " HTTP/1.1" + std::string(eol) + "Host: h" + std::string(eol) + std::string(eol);
  return start + std::string(size - start.size() - end.size(), 'a') + end;
}

// The same size, the bulk in one header line.
std::string header_head_of_size(size_t size) {
  const std::string start = "GET /x HTTP/1.1\r\nX-Big: ";
  const std::string end = "\r\n\r\n";
  return start + std::string(size - start.size() - end.size(), 'b') + end;
}

TEST(RequestLimits, GoHeadLimitIsOneMebibytePlusFourKibibytes) {
  EXPECT_EQ(kGoMaxHeadBytes, 1052672u);
  EXPECT_EQ(ParseLimits{}.max_header_bytes, kGoMaxHeadBytes);
}

TEST(RequestLimits, WholeHeadUpToTheLimitIsTaken) {
  for (std::string_view eol : {"\r\n", "\n"}) {
    Request r;
    std::string raw = head_of_size(kGoMaxHeadBytes, eol);
    ASSERT_EQ(raw.size(), kGoMaxHeadBytes);
    ParseResult p = parse_request(raw, ParseLimits{}, r);
    ASSERT_EQ(p.state, ParseState::kComplete) << p.error;
    EXPECT_EQ(p.consumed, raw.size());
    EXPECT_EQ(r.path, "/x");
    EXPECT_EQ(r.query.size(), kGoMaxHeadBytes - 25 - 3 * eol.size() + 2);  // "q=" and the a's
    EXPECT_EQ(r.header("host"), "h");

    std::string over = head_of_size(kGoMaxHeadBytes + 1, eol);
    p = parse_request(over, ParseLimits{}, r);
    EXPECT_EQ(p.state, ParseState::kError);
    EXPECT_EQ(p.error_status, 431) << p.error;
  }
  Request r;
  EXPECT_EQ(parse_request(header_head_of_size(kGoMaxHeadBytes), ParseLimits{}, r).state, ParseState::kComplete);
  EXPECT_EQ(r.header("x-big").size(), kGoMaxHeadBytes - 24 - 4);
  ParseResult p = parse_request(header_head_of_size(kGoMaxHeadBytes + 1), ParseLimits{}, r);
  EXPECT_EQ(p.error_status, 431);
  // Many header lines adding up: the same limit.
  std::string many = "GET / HTTP/1.1\r\n";
  while (many.size() < kGoMaxHeadBytes) many += "X-H: " + std::string(100, 'c') + "\r\n";
  many += "\r\n";
  EXPECT_EQ(parse_request(many, ParseLimits{}, r).error_status, 431);
}

TEST(RequestLimits, IncompleteHeadIsRefusedOnceItCannotFit) {
  Request r;
  // The head's end could still come: more bytes needed.
  std::string raw = "GET /x?q=" + std::string(kGoMaxHeadBytes - 10, 'a');
  ASSERT_EQ(raw.size(), kGoMaxHeadBytes - 1);
  ParseResult p = parse_request(raw, ParseLimits{}, r);
  EXPECT_EQ(p.state, ParseState::kNeedMore);
  EXPECT_EQ(p.need_bytes, 0u);
  // At the limit without its end, the end would lie beyond it: 431 now
  // (a URL too long is 431 too, as in Go; never 414 at the defaults).
  raw += 'a';
  p = parse_request(raw, ParseLimits{}, r);
  EXPECT_EQ(p.state, ParseState::kError);
  EXPECT_EQ(p.error_status, 431);
  // Even when the bytes at the limit start the empty line.
  std::string almost = head_of_size(kGoMaxHeadBytes + 1);
  almost.pop_back();
  ASSERT_EQ(almost.size(), kGoMaxHeadBytes);
  EXPECT_EQ(parse_request(almost, ParseLimits{}, r).error_status, 431);
}

TEST(RequestLimits, SmallerLimitsStillApplyOnTheirOwn) {
  ParseLimits l;
  l.max_target_bytes = 100;
  l.max_header_line_bytes = 100;
  Request r;
  EXPECT_EQ(parse_request("GET /" + std::string(100, 'a') + " HTTP/1.1\r\n\r\n", l, r).error_status, 414);
  EXPECT_EQ(parse_request("GET /" + std::string(200, 'a'), l, r).error_status, 414);
  EXPECT_EQ(parse_request("GET /" + std::string(99, 'a') + " HTTP/1.1\r\n\r\n", l, r).state, ParseState::kComplete);
  EXPECT_EQ(parse_request("GET / HTTP/1.1\r\nX: " + std::string(98, 'b') + "\r\n\r\n", l, r).error_status, 431);
  EXPECT_EQ(parse_request("GET / HTTP/1.1\r\nX: " + std::string(97, 'b') + "\r\n\r\n", l, r).state,
            ParseState::kComplete);
  l.max_header_bytes = 64;
  EXPECT_EQ(parse_request(head_of_size(64), l, r).state, ParseState::kComplete);
  EXPECT_EQ(parse_request(head_of_size(65), l, r).error_status, 431);
}

TEST(RequestLimits, HeadEndsAtTheFirstEmptyLineWhateverTheLineEndings) {
  // Go reads lines ending in "\n" with an optional "\r" before it.
  Request r;
  for (std::string head : {"GET /a HTTP/1.1\nHost: x\n\r\n", "GET /a HTTP/1.1\r\nHost: x\r\n\n",
                           "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "GET /a HTTP/1.1\nHost: x\n\n"}) {
    ParseResult p = parse_request(head + "BODY\r\n\r\n", ParseLimits{}, r);
    ASSERT_EQ(p.state, ParseState::kComplete) << head;
    EXPECT_EQ(p.consumed, head.size()) << head;
    EXPECT_EQ(r.header("host"), "x");
  }
  // A bare-LF head followed by a body holding "\r\n\r\n": the head is the
  // part before the first empty line.
  std::string raw = "POST /a HTTP/1.1\nContent-Length: 6\n\nab\r\n\r\n";
  ParseResult p = parse_request(raw, ParseLimits{}, r);
  ASSERT_EQ(p.state, ParseState::kComplete) << p.error;
  EXPECT_EQ(r.body, "ab\r\n\r\n");
  EXPECT_EQ(p.consumed, raw.size());
}

TEST(RequestLimits, ResumedParsingAgreesWithParsingAtOnce) {
  const std::string raw = "POST /api/v1/query HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nquery=1%2B1NEXT";
  Request whole;
  ParseResult at_once = parse_request(raw, ParseLimits{}, whole);
  ASSERT_EQ(at_once.state, ParseState::kComplete);
  // Fed in pieces of every size from 1 to 7 bytes, passing `resume` back and
  // not calling again while the body is short of need_bytes.
  for (size_t step = 1; step <= 7; ++step) {
    Request r;
    ParseResult p;
    size_t fed = 0, calls = 0;
    while (p.state == ParseState::kNeedMore && fed < raw.size()) {
      fed = std::min(raw.size(), fed + step);
      if (fed < p.need_bytes) continue;
      p = parse_request(std::string_view(raw).substr(0, fed), ParseLimits{}, r, p.resume);
      ++calls;
      if (p.state == ParseState::kNeedMore && p.need_bytes > 0) {
        EXPECT_EQ(p.need_bytes, at_once.consumed);
      }
    }
    ASSERT_EQ(p.state, ParseState::kComplete) << "step " << step;
    EXPECT_EQ(p.consumed, at_once.consumed);
    EXPECT_EQ(r.body, "query=1%2B1");
    EXPECT_EQ(r.target, whole.target);
    EXPECT_EQ(r.headers, whole.headers);
    EXPECT_LE(calls, raw.size() / step + 2);
  }
  // The empty line split across calls, CRLF and bare LF.
  for (std::string head : {"GET / HTTP/1.1\r\nA: b\r\n\r\n", "GET / HTTP/1.1\nA: b\n\n"}) {
    for (size_t cut = 1; cut < head.size(); ++cut) {
      Request r;
      ParseResult p = parse_request(std::string_view(head).substr(0, cut), ParseLimits{}, r);
      ASSERT_EQ(p.state, ParseState::kNeedMore) << cut;
      EXPECT_LE(p.resume, cut);
      p = parse_request(head, ParseLimits{}, r, p.resume);
      ASSERT_EQ(p.state, ParseState::kComplete) << head << " cut at " << cut;
      EXPECT_EQ(p.consumed, head.size());
      EXPECT_EQ(r.header("a"), "b");
    }
  }
}

}  // namespace
}  // namespace llmon::http
