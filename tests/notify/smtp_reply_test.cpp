// SMTP reply parser on literal server bytes: single and multi-line replies,
// split input, bare LF, and malformed, binary and oversized input.
#include "notify/email/smtp_reply.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmon::notify {
namespace {

TEST(SmtpReply, SingleLine) {
  auto r = parse_smtp_reply("250 2.1.0 Ok\r\n");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->code, 250);
  ASSERT_EQ(r->lines.size(), 1u);
  EXPECT_EQ(r->lines[0], "2.1.0 Ok");
  EXPECT_EQ(r->summary(), "250 2.1.0 Ok");
  EXPECT_TRUE(r->positive());
}

TEST(SmtpReply, CodeOnlyAndBareLf) {
  auto r = parse_smtp_reply("354\n");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->code, 354);
  EXPECT_EQ(r->summary(), "354");
}

TEST(SmtpReply, MultiLineEhlo) {
  auto r = parse_smtp_reply(
      "250-mail.example.org Hello\r\n250-SIZE 33554432\r\n250-8BITMIME\r\n250-starttls\r\n"
      "250-AUTH PLAIN LOGIN\r\n250 HELP\r\n");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->code, 250);
  ASSERT_EQ(r->lines.size(), 6u);
  EXPECT_EQ(r->lines[0], "mail.example.org Hello");
  SmtpExtensions ext = parse_ehlo_extensions(*r);
  EXPECT_EQ(ext.size(), 5u);
  EXPECT_EQ(ext["SIZE"], "33554432");
  EXPECT_EQ(ext["AUTH"], "PLAIN LOGIN");
  EXPECT_TRUE(ext.count("STARTTLS"));  // keywords are upper-cased
  EXPECT_TRUE(ext.count("HELP"));
  EXPECT_FALSE(ext.count("MAIL.EXAMPLE.ORG"));  // the greeting line is not a keyword
}

TEST(SmtpReply, ByteByByteAndPipelined) {
  SmtpReplyParser p;
  const std::string bytes = "220-hi\r\n220 ready\r\n250 ok\r\n";
  std::vector<SmtpReply> got;
  for (char c : bytes) {
    p.feed(std::string_view(&c, 1));
    while (true) {
      auto r = p.next();
      ASSERT_TRUE(r) << r.error();
      if (!r->has_value()) break;
      got.push_back(**r);
    }
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].code, 220);
  EXPECT_EQ(got[0].text(), "hi ready");
  EXPECT_EQ(got[1].code, 250);
  EXPECT_EQ(p.buffered(), 0u);

  SmtpReplyParser q;
  q.feed("220 go ahead\r\n250 injected\r\n");
  auto first = q.next();
  ASSERT_TRUE(first && first->has_value());
  EXPECT_EQ((*first)->code, 220);
  EXPECT_EQ(q.buffered(), std::string("250 injected\r\n").size());
}

TEST(SmtpReply, IncompleteNeedsMore) {
  SmtpReplyParser p;
  p.feed("250-first\r\n250 sec");
  auto r = p.next();
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r->has_value());
  p.feed("ond\r\n");
  r = p.next();
  ASSERT_TRUE(r && r->has_value());
  EXPECT_EQ((*r)->text(), "first second");
  EXPECT_FALSE(parse_smtp_reply("250 no newline"));
}

TEST(SmtpReply, Malformed) {
  for (const std::string& bad : std::vector<std::string>{
           "hello\r\n", "2x0 ok\r\n", "600 out of range\r\n", "199 too low\r\n", "25\r\n", "250_ok\r\n",
           std::string("\0\x01\x02\r\n", 5), "\xff\xfe\xfd\r\n", "\r\n", "250-a\r\n251 b\r\n"}) {
    auto r = parse_smtp_reply(bad);
    EXPECT_FALSE(r) << "accepted: " << bad;
  }
  auto mixed = parse_smtp_reply("250-a\r\n251 b\r\n");
  ASSERT_FALSE(mixed);
  EXPECT_NE(mixed.error().find("mixes codes 250 and 251"), std::string::npos) << mixed.error();
  auto garbage = parse_smtp_reply("HTTP/1.1 400 Bad Request\r\n");
  ASSERT_FALSE(garbage);
  EXPECT_NE(garbage.error().find("malformed reply line \"HTTP/1.1"), std::string::npos) << garbage.error();
}

TEST(SmtpReply, Limits) {
  SmtpReplyParser p;
  p.feed("250 " + std::string(SmtpReplyParser::kMaxLineBytes + 10, 'a'));  // no newline yet
  auto r = p.next();
  EXPECT_FALSE(r);

  std::string many;
  for (size_t i = 0; i < SmtpReplyParser::kMaxLines + 5; ++i) many += "250-x\r\n";
  many += "250 end\r\n";
  EXPECT_FALSE(parse_smtp_reply(many));
}

TEST(SmtpReply, TextHasNoControls) {
  auto r = parse_smtp_reply("550 bad\x1b[31m red\x07\r\n");
  ASSERT_TRUE(r) << r.error();
  for (char c : r->text()) EXPECT_GE(static_cast<unsigned char>(c), 0x20);
}

}  // namespace
}  // namespace llmon::notify
