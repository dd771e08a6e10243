// MIME encoders: base64 (RFC 4648 vectors), quoted-printable and RFC 2047
// round trips through the independent test decoder, header folding and
// sanitising, RFC 5322 dates, mailbox parsing.
#include "notify/email/email_mime.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "notify/email_mime_reader.h"

namespace llmon::notify {
namespace {

using testing::b64_decode;
using testing::decode_words;
using testing::qp_decode;

TEST(EmailMime, Base64Vectors) {
  // RFC 4648 §10.
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  std::string bin;
  for (int i = 0; i < 256; ++i) bin += static_cast<char>(i);
  std::string body = base64_body(bin);
  for (size_t p = 0, e; (e = body.find("\r\n", p)) != std::string::npos; p = e + 2) EXPECT_LE(e - p, 76u);
  EXPECT_EQ(b64_decode(body), bin);
}

TEST(EmailMime, QuotedPrintable) {
  EXPECT_EQ(quoted_printable_encode("plain text\n"), "plain text\r\n");
  EXPECT_EQ(quoted_printable_encode("a=b"), "a=3Db");
  EXPECT_EQ(quoted_printable_encode("trailing  \nx\t\n"), "trailing =20\r\nx=09\r\n");
  EXPECT_EQ(quoted_printable_encode("caf\xc3\xa9"), "caf=C3=A9");
  EXPECT_EQ(quoted_printable_encode("crlf\r\nkept\r\n"), "crlf\r\nkept\r\n");
  EXPECT_EQ(quoted_printable_encode("bare\rcr"), "bare=0Dcr");
  std::string long_line(200, 'x');
  std::string enc = quoted_printable_encode(long_line + "\n");
  for (size_t p = 0, e; (e = enc.find("\r\n", p)) != std::string::npos; p = e + 2) EXPECT_LE(e - p, 76u);
  EXPECT_EQ(qp_decode(enc), long_line + "\n");
}

TEST(EmailMime, QuotedPrintableRoundTripRandom) {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::string s;
    size_t n = rng() % 300;
    for (size_t i = 0; i < n; ++i) {
      int pick = rng() % 10;
      s += pick == 0 ? '\n' : pick == 1 ? ' ' : pick == 2 ? '=' : static_cast<char>(rng() % 256);
    }
    std::string enc = quoted_printable_encode(s);
    for (size_t p = 0, e; (e = enc.find("\r\n", p)) != std::string::npos; p = e + 2) {
      ASSERT_LE(e - p, 76u);
      std::string_view line(enc.data() + p, e - p);
      if (!line.empty()) {
        ASSERT_NE(line.back(), ' ') << "unencoded trailing space";
        ASSERT_NE(line.back(), '\t') << "unencoded trailing tab";
      }
    }
    for (char c : enc) ASSERT_LT(static_cast<unsigned char>(c), 0x80);
    // A lone CR in the input is encoded, a CRLF is a line break: compare on LF.
    std::string want;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') continue;
      want += s[i];
    }
    ASSERT_EQ(qp_decode(enc), want) << "round " << round;
  }
}

TEST(EmailMime, HeaderTextRemovesControls) {
  EXPECT_EQ(header_text("a\r\nBcc: x@y"), "a  Bcc: x@y");
  EXPECT_EQ(header_text(std::string("n\0ul\x7f", 5)), "n ul ");
  EXPECT_EQ(header_text("c1\xc2\x85line"), "c1 line");  // U+0085 NEXT LINE
  EXPECT_EQ(header_text("bad\xff"), "bad\xef\xbf\xbd");
}

TEST(EmailMime, HeaderLineFoldsAndEncodes) {
  EXPECT_EQ(header_line("Subject", "[FIRING:1] X "), "Subject: [FIRING:1] X \r\n");
  std::string words;
  for (int i = 0; i < 40; ++i) words += "word" + std::to_string(i) + " ";
  std::string h = header_line("Subject", words);
  size_t lines = 0;
  for (size_t p = 0, e; (e = h.find("\r\n", p)) != std::string::npos; p = e + 2) {
    EXPECT_LE(e - p, 78u);
    if (p > 0) {
      EXPECT_EQ(h[p], ' ');
    }
    ++lines;
  }
  EXPECT_GT(lines, 3u);
  auto e = testing::parse_entity(h + "\r\n");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->get("Subject"), words);  // unfolding restores it exactly

  std::string utf =
      "GPU \xc3\xbc"
      "berhitzt \xe2\x9c\x93 " +
      std::string(100, 'x') + " \xf0\x9f\x94\xa5 end";
  std::string u = header_line("Subject", utf);
  for (char c : u) EXPECT_LT(static_cast<unsigned char>(c), 0x80);
  auto ue = testing::parse_entity(u + "\r\n");
  ASSERT_TRUE(ue);
  EXPECT_EQ(decode_words(ue->get("Subject")), utf);
  for (size_t p = 0, end; (end = u.find("\r\n", p)) != std::string::npos; p = end + 2) EXPECT_LE(end - p, 78u);

  // "=?" in plain text would be decoded by readers: encode it.
  std::string spoof = "=?UTF-8?B?ZXZpbA==?=";
  auto se = testing::parse_entity(header_line("Subject", spoof) + "\r\n");
  ASSERT_TRUE(se);
  EXPECT_EQ(decode_words(se->get("Subject")), spoof);
}

TEST(EmailMime, EncodeWordsSplitsOnCharacters) {
  std::string s;
  for (int i = 0; i < 50; ++i) s += "\xe2\x82\xac";  // 150 bytes of euro signs
  std::string w = encode_words(s);
  size_t start = 0;
  while (start < w.size()) {
    size_t sp = w.find(' ', start);
    std::string word = w.substr(start, sp == std::string::npos ? std::string::npos : sp - start);
    EXPECT_LE(word.size(), 75u);
    auto d = decode_words(word);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->size() % 3, 0u) << "split inside a character";
    if (sp == std::string::npos) break;
    start = sp + 1;
  }
  EXPECT_EQ(decode_words(w), s);
}

TEST(EmailMime, Dates) {
  EXPECT_EQ(rfc5322_date(0), "Thu, 01 Jan 1970 00:00:00 +0000");
  EXPECT_EQ(rfc5322_date(1714557600123), "Wed, 01 May 2024 10:00:00 +0000");
  EXPECT_EQ(rfc5322_date(951782400000), "Tue, 29 Feb 2000 00:00:00 +0000");
}

TEST(EmailMime, Addresses) {
  auto a = parse_mail_address("alerts@example.org");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->address, "alerts@example.org");
  EXPECT_EQ(a->display_name, "");
  auto b = parse_mail_address("  llmon on gpu01 <alerts@gpu01.example.org> ");
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->address, "alerts@gpu01.example.org");
  EXPECT_EQ(b->display_name, "llmon on gpu01");
  EXPECT_EQ(format_mail_address(*b), "llmon on gpu01 <alerts@gpu01.example.org>");
  auto c = parse_mail_address("\"GPU team, on call\" <gpu+oncall@example.org>");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->display_name, "GPU team, on call");
  EXPECT_EQ(format_mail_address(*c), "\"GPU team, on call\" <gpu+oncall@example.org>");
  auto d = parse_mail_address("J\xc3\xbcrgen <j@[127.0.0.1]>");
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(format_mail_address(*d), "=?UTF-8?B?SsO8cmdlbg==?= <j@[127.0.0.1]>");
  for (const char* bad : {"", "no-at", "a@", "@b", "a b@c", "a@b c", "a@b>\r\nRCPT TO:<x@y", "x <a@b", "x <a@b> y",
                          "a..b@c", ".a@c", "a@-b", "a@b..c", "\"q\"@b", "x\r\n <a@b>", "a@b\r\n"})
    EXPECT_FALSE(parse_mail_address(bad)) << bad;
  auto list = parse_address_list("a@x.org, \"B, the second\" <b@x.org>,c@x.org");
  ASSERT_TRUE(list) << list.error();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[1].display_name, "B, the second");
  EXPECT_EQ((*list)[2].address, "c@x.org");
  EXPECT_FALSE(parse_address_list("a@x.org,,b@x.org"));
  EXPECT_FALSE(parse_address_list("\"unterminated <a@x.org>"));
}

}  // namespace
}  // namespace llmon::notify
