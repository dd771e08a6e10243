#include "top/keys.h"

#include <gtest/gtest.h>

namespace llmon::top {
namespace {

std::vector<std::string> names(const std::vector<KeyEvent>& ev) {
  std::vector<std::string> out;
  for (const auto& e : ev) out.push_back(key_name(e));
  return out;
}

using V = std::vector<std::string>;

TEST(KeyParser, PlainAndControlKeys) {
  KeyParser p;
  EXPECT_EQ(names(p.feed("qs/\r\t\x7f\x08\x03\x0c")),
            (V{"q", "s", "/", "Enter", "Tab", "Backspace", "Backspace", "Ctrl-c", "Ctrl-l"}));
  EXPECT_FALSE(p.pending());
}

TEST(KeyParser, CursorKeysInCsiAndSs3Forms) {
  KeyParser p;
  EXPECT_EQ(names(p.feed("\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1bOB\x1b[H\x1b[F\x1b[5~\x1b[6~\x1b[3~\x1b[1~\x1b[4~\x1b[Z")),
            (V{"Up", "Down", "Right", "Left", "Up", "Down", "Home", "End", "PgUp", "PgDn", "Delete", "Home", "End",
               "Shift-Tab"}));
  EXPECT_EQ(names(p.feed("\x1b[1;5A\x1b[1;2B\x1b[5;3~\x1bOP\x1b[15~\x1b[24~")),
            (V{"Ctrl-Up", "Shift-Down", "Alt-PgUp", "F1", "F5", "F12"}));
}

TEST(KeyParser, AltAndUtf8) {
  KeyParser p;
  EXPECT_EQ(names(p.feed("\x1bx\xc3\xa9\xe2\x96\x88")), (V{"Alt-x", "é", "█"}));
}

TEST(KeyParser, SequencesSplitAcrossReadsWaitForTheirRest) {
  KeyParser p;
  EXPECT_TRUE(p.feed("\x1b").empty());
  EXPECT_TRUE(p.pending());
  EXPECT_TRUE(p.feed("[").empty());
  EXPECT_TRUE(p.feed("1;5").empty());
  EXPECT_EQ(names(p.feed("Cq")), (V{"Ctrl-Right", "q"}));
  EXPECT_TRUE(p.feed("\xe2\x96").empty());
  EXPECT_EQ(names(p.feed("\x88")), (V{"█"}));
  EXPECT_TRUE(p.feed("\x1b[<0;5").empty());
  auto m = p.feed(";7M");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].key, Key::kMouse);
}

TEST(KeyParser, LoneEscapeIsFlushed) {
  KeyParser p;
  EXPECT_TRUE(p.feed("\x1b").empty());
  EXPECT_EQ(names(p.flush()), (V{"Esc"}));
  EXPECT_FALSE(p.pending());
  // ESC ESC: the first is a key at once.
  EXPECT_EQ(names(p.feed("\x1b\x1b")), (V{"Esc"}));
  EXPECT_EQ(names(p.flush()), (V{"Esc"}));
  // An unfinished sequence at flush time: Escape, then the rest as typed.
  p.feed("\x1b[");
  EXPECT_EQ(names(p.flush()), (V{"Esc", "["}));
}

TEST(KeyParser, SgrMouseReports) {
  KeyParser p;
  auto ev = p.feed("\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<64;1;1M\x1b[<65;2;3M\x1b[<32;4;4M\x1b[<18;3;3M");
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev[0].button, MouseButton::kLeft);
  EXPECT_TRUE(ev[0].pressed);
  EXPECT_EQ(ev[0].x, 9);
  EXPECT_EQ(ev[0].y, 4);
  EXPECT_FALSE(ev[1].pressed);
  EXPECT_EQ(ev[2].button, MouseButton::kWheelUp);
  EXPECT_EQ(ev[3].button, MouseButton::kWheelDown);
  EXPECT_EQ(ev[3].x, 1);
  EXPECT_EQ(ev[3].y, 2);
  EXPECT_TRUE(ev[4].motion);
  EXPECT_EQ(ev[5].button, MouseButton::kRight);
  EXPECT_TRUE(ev[5].ctrl);
}

TEST(KeyParser, JunkNeverBecomesCharacters) {
  KeyParser p;
  EXPECT_EQ(names(p.feed("\x1b[99~\x1b[<1;2M")), (V{"?", "?"}));
  // A CSI run that never ends is dropped after a bound, not kept forever.
  std::string junk = "\x1b[" + std::string(40, '1');
  auto ev = p.feed(junk);
  EXPECT_EQ(names(ev), (V{"?"}));
  EXPECT_FALSE(p.pending());
  EXPECT_EQ(names(p.feed("q")), (V{"q"}));
}

TEST(KeyParser, EveryByteStringParsesWithoutCrashing) {
  // A cheap fuzz: all two- and three-byte strings over an alphabet of the
  // interesting bytes, fed whole and byte by byte, must give the same keys.
  const std::string alpha = std::string("\x1b[O<;~M0159Aq\xc3\xa9\x7f\r", 17);
  for (char a : alpha)
    for (char b : alpha)
      for (char c : alpha) {
        std::string s{a, b, c};
        KeyParser whole, bytes;
        auto w = whole.feed(s);
        for (auto& e : whole.flush()) w.push_back(e);
        std::vector<KeyEvent> v;
        for (char ch : s)
          for (auto& e : bytes.feed(std::string(1, ch))) v.push_back(e);
        for (auto& e : bytes.flush()) v.push_back(e);
        ASSERT_EQ(names(w), names(v)) << testing::PrintToString(s);
      }
}

}  // namespace
}  // namespace llmon::top
