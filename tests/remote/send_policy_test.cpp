#include "remote/send_policy.h"

#include <gtest/gtest.h>

#include "remote/read_position.h"

namespace llmon::remote {
namespace {

TEST(SendPolicy, VerdictFollowsTheSpec) {
  EXPECT_EQ(verdict_for_status(200, true), SendVerdict::kAcked);
  EXPECT_EQ(verdict_for_status(204, true), SendVerdict::kAcked);
  EXPECT_EQ(verdict_for_status(500, true), SendVerdict::kRetry);
  EXPECT_EQ(verdict_for_status(503, false), SendVerdict::kRetry);
  EXPECT_EQ(verdict_for_status(429, true), SendVerdict::kRetry);
  EXPECT_EQ(verdict_for_status(429, false), SendVerdict::kDrop);
  EXPECT_EQ(verdict_for_status(400, true), SendVerdict::kDrop);
  EXPECT_EQ(verdict_for_status(404, true), SendVerdict::kDrop);
  EXPECT_EQ(verdict_for_status(301, true), SendVerdict::kDrop);
}

TEST(SendPolicy, BackoffDoublesAndCaps) {
  EXPECT_EQ(retry_delay_ms(1, 30, 5000, std::nullopt), 30);
  EXPECT_EQ(retry_delay_ms(2, 30, 5000, std::nullopt), 60);
  EXPECT_EQ(retry_delay_ms(5, 30, 5000, std::nullopt), 480);
  EXPECT_EQ(retry_delay_ms(100, 30, 5000, std::nullopt), 5000);
  EXPECT_EQ(retry_delay_ms(1, 30, 5000, 2000), 2000);      // Retry-After wins
  EXPECT_EQ(retry_delay_ms(1, 30, 5000, 3600000), 50000);  // capped at 10 x max_backoff
}

TEST(SendPolicy, RetryAfter) {
  EXPECT_EQ(parse_retry_after_ms("120", 0), 120000);
  EXPECT_EQ(parse_retry_after_ms(" 3 ", 0), 3000);
  EXPECT_EQ(parse_retry_after_ms("", 0), std::nullopt);
  EXPECT_EQ(parse_retry_after_ms("-1", 0), std::nullopt);
  EXPECT_EQ(parse_retry_after_ms("soon", 0), std::nullopt);
  // Sun, 06 Nov 1994 08:49:37 GMT = 784111777.
  EXPECT_EQ(parse_retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT", 784111770), 7000);
  EXPECT_EQ(parse_retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT", 784111800), 0);
}

TEST(ReadPosition, FormatsAndParses) {
  ReadPosition p{7, 32768, 12, 1733230000123};
  const std::string text = format_position(p);
  EXPECT_EQ(text, "llmon-remote-write-position 1\nsegment 7\noffset 32768\nskip 12\nmax_sent_ms 1733230000123\n");
  auto back = parse_position(text);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, p);
}

TEST(ReadPosition, RefusesDamage) {
  EXPECT_FALSE(parse_position(""));
  EXPECT_FALSE(parse_position("llmon-remote-write-position 2\n"));
  EXPECT_FALSE(parse_position("llmon-remote-write-position 1\nsegment 7\n"));  // incomplete
  auto bad = parse_position("llmon-remote-write-position 1\nsegment x\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "line 2: bad number \"x\"");
  EXPECT_FALSE(parse_position("llmon-remote-write-position 1\nsegment 1\noffset 0\nskip 0\nmax_sent_ms 0\nextra 1\n"));
}

}  // namespace
}  // namespace llmon::remote
