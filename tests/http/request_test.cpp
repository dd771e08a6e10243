#include "http/request.h"

#include <gtest/gtest.h>

namespace llmon::http {
namespace {

ParseResult parse(std::string_view s, Request& r, ParseLimits l = {}) {
  return parse_request(s, l, r);
}

TEST(ParseRequest, SimpleGet) {
  Request r;
  std::string raw = "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\nGET /next";
  auto p = parse(raw, r);
  ASSERT_EQ(p.state, ParseState::kComplete) << p.error;
  EXPECT_EQ(p.consumed, raw.find("GET /next"));
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.query, "x=1");
  EXPECT_EQ(r.header("accept-encoding"), "gzip");
  EXPECT_EQ(r.header("missing"), "");
  EXPECT_TRUE(r.keep_alive());
}

TEST(ParseRequest, NeedsMoreUntilHeadersAndBodyArrive) {
  Request r;
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost:", r).state, ParseState::kNeedMore);
  EXPECT_EQ(parse("", r).state, ParseState::kNeedMore);
  EXPECT_EQ(parse("POST /q HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", r).state, ParseState::kNeedMore);
  auto p = parse("POST /q HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcdeX", r);
  ASSERT_EQ(p.state, ParseState::kComplete);
  EXPECT_EQ(r.body, "abcde");
}

TEST(ParseRequest, KeepAliveRules) {
  Request r;
  ASSERT_EQ(parse("GET / HTTP/1.0\r\n\r\n", r).state, ParseState::kComplete);
  EXPECT_FALSE(r.keep_alive());
  ASSERT_EQ(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", r).state, ParseState::kComplete);
  EXPECT_TRUE(r.keep_alive());
  ASSERT_EQ(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", r).state, ParseState::kComplete);
  EXPECT_FALSE(r.keep_alive());
}

TEST(ParseRequest, ErrorsCarryTheStatus) {
  Request r;
  struct Case {
    std::string raw;
    int status;
  } cases[] = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET noslash HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"GET / FTP/1.0\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\n folded: x\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", 413},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
      {"GET /" + std::string(kGoMaxHeadBytes, 'a') + " HTTP/1.1\r\n\r\n", 431},
      {"GET /" + std::string(kGoMaxHeadBytes, 'a'), 431},
      {"GET / HTTP/1.1\r\nX: " + std::string(kGoMaxHeadBytes, 'b') + "\r\n", 431},
      {"GET / HTTP/1.1\r\nX: " + std::string(kGoMaxHeadBytes, 'b') + "\r\n\r\n", 431},
      {std::string("GET /\x01 HTTP/1.1\r\n\r\n", 20), 400},
  };
  for (const auto& c : cases) {
    auto p = parse(c.raw, r);
    EXPECT_EQ(p.state, ParseState::kError) << c.raw.substr(0, 40);
    EXPECT_EQ(p.error_status, c.status) << c.raw.substr(0, 40) << " -> " << p.error;
    EXPECT_FALSE(p.error.empty());
  }
}

TEST(ParseRequest, BinaryGarbageNeverCrashes) {
  Request r;
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 131 + 7) % 256);
  for (size_t n = 0; n <= junk.size(); n += 97) {
    auto p = parse(std::string_view(junk).substr(0, n), r);
    EXPECT_NE(p.state, ParseState::kComplete);
  }
}

TEST(ResponseHead, HasLengthTypeAndConnection) {
  Response res;
  res.status = 404;
  res.body = "nope\n";
  res.headers.emplace_back("Vary", "Accept");
  std::string h = response_head(res, true);
  EXPECT_EQ(h,
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n"
            "Vary: Accept\r\nConnection: keep-alive\r\n\r\n");
}

}  // namespace
}  // namespace llmon::http
