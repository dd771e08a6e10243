// Screen, charts and number forms.
#include "top/charts.h"

#include <gtest/gtest.h>

#include <cmath>

#include "top/format.h"
#include "top/screen.h"

namespace llmon::top {
namespace {

std::string u8(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

TEST(Screen, TextIsClippedAndWideCharactersTakeOneSafeColumn) {
  Screen s(6, 2);
  EXPECT_EQ(s.text(2, 0, "abcdef", Style{}), 6);
  s.text(0, 1, "日x\x01\xff", Style{});
  EXPECT_EQ(s.to_text(), "  abcd\n?x?\xef\xbf\xbd\n");
  s.set(-1, 0, U'z', Style{});
  s.set(6, 0, U'z', Style{});
  EXPECT_EQ(s.at(0, 0).ch, U' ');
}

TEST(Screen, Utf8RoundTripAndInvalidInput) {
  std::string s = "a\xc3\xa9\xe2\x96\x88\xf0\x9f\x98\x80";
  std::string back;
  for (char32_t c : decode_utf8(s)) append_utf8(back, c);
  EXPECT_EQ(back, s);
  EXPECT_EQ(decode_utf8("\xc0\xaf"), U"\uFFFD\uFFFD");            // overlong
  EXPECT_EQ(decode_utf8("\xed\xa0\x80"), U"\uFFFD\uFFFD\uFFFD");  // surrogate
  EXPECT_EQ(decode_utf8("\xe2\x96"), U"\uFFFD\uFFFD");            // cut short
}

TEST(Charts, Sparklines) {
  Ring r(10);
  for (double v : {0.0, 25.0, 50.0, 75.0, 100.0, std::nan("")}) r.push(v);
  EXPECT_EQ(u8(sparkline(r, 8, 100, ChartStyle::kBlock)), "   ▂▄▆█ ");
  EXPECT_EQ(u8(sparkline(r, 8, 100, ChartStyle::kAscii)), "   :+#@ ");
  // Braille: two samples a cell, dots from the bottom.
  EXPECT_EQ(u8(sparkline(r, 3, 100, ChartStyle::kBraille)), "⢀⣴⡇");
  for (int i = 0; i < 20; ++i) r.push(200);  // clamped, ring keeps 10
  EXPECT_EQ(r.size(), 10u);
  EXPECT_EQ(u8(sparkline(r, 4, 100, ChartStyle::kBlock)), "████");
}

TEST(Charts, BarsAndLevels) {
  EXPECT_EQ(u8(hbar(50, 4, false)), "██  ");
  EXPECT_EQ(u8(hbar(56.25, 4, false)), "██▎ ");
  EXPECT_EQ(u8(hbar(50, 4, true)), "||  ");
  EXPECT_EQ(u8(hbar(150, 2, false)), "██");
  EXPECT_EQ(u8(hbar(NAN, 2, false)), "  ");
  EXPECT_EQ(level_glyph(0, false), U' ');
  EXPECT_EQ(level_glyph(1, false), U'▁');
  EXPECT_EQ(level_glyph(100, false), U'█');
  EXPECT_EQ(level_glyph(100, true), U'@');
}

TEST(Format, ShortForms) {
  EXPECT_EQ(bytes_short(0), "0");
  EXPECT_EQ(bytes_short(999), "999");
  EXPECT_EQ(bytes_short(1000), "1.0K");
  EXPECT_EQ(bytes_short(80.0 * (1 << 30)), "80G");
  EXPECT_EQ(bytes_short(1.5 * (1ull << 40)), "1.5T");
  EXPECT_EQ(bytes_short(std::nullopt), "-");
  EXPECT_EQ(rate_short(1.2e6), "1.1M/s");
  EXPECT_EQ(percent(45.4), "45%");
  EXPECT_EQ(percent(std::nullopt), "-");
  EXPECT_EQ(fit("abcdef", 4, "…"), "abc…");
  EXPECT_EQ(fit("ab", 4), "ab  ");
  EXPECT_EQ(fit_right("ab", 4), "  ab");
  EXPECT_EQ(fit("日本語です", 3, "~"), "日本~");
}

}  // namespace
}  // namespace llmon::top
