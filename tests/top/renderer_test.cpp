// The renderer's output replayed on a small VT100 model: every frame must
// leave the model showing exactly the Screen, and a frame that changes one
// cell must write only that cell.
#include "top/renderer.h"

#include <gtest/gtest.h>

#include <random>

namespace llmon::top {
namespace {

// Enough of a terminal for what the renderer writes: CUP, ED 2, SGR, text;
// autowrap off (the cursor stays on the last column).
class Vt {
 public:
  Vt(int w, int h) : grid_(w, h) {}
  void feed(const std::string& bytes) {
    std::u32string cps = decode_utf8(bytes);
    for (size_t i = 0; i < cps.size(); ++i) {
      char32_t c = cps[i];
      if (c == 0x1b) {
        ASSERT_LT(i + 1, cps.size());
        ASSERT_EQ(cps[i + 1], U'[');
        size_t j = i + 2;
        std::string p;
        while (j < cps.size() && ((cps[j] >= U'0' && cps[j] <= U'9') || cps[j] == U';'))
          p += static_cast<char>(cps[j++]);
        ASSERT_LT(j, cps.size());
        csi(p, static_cast<char>(cps[j]));
        i = j;
        continue;
      }
      grid_.set(x_, y_, c, style_);
      ++writes_;
      if (x_ < grid_.width() - 1) ++x_;
    }
  }
  const Screen& grid() const { return grid_; }
  int writes() const { return writes_; }

 private:
  void csi(const std::string& p, char f) {
    std::vector<int> v;
    size_t s = 0;
    while (s <= p.size()) {
      size_t e = p.find(';', s);
      if (e == std::string::npos) e = p.size();
      v.push_back(e > s ? std::stoi(p.substr(s, e - s)) : 0);
      s = e + 1;
    }
    if (f == 'H') {
      y_ = v.size() > 0 && v[0] ? v[0] - 1 : 0;
      x_ = v.size() > 1 && v[1] ? v[1] - 1 : 0;
    } else if (f == 'J') {
      grid_.clear();
    } else if (f == 'm') {
      for (size_t k = 0; k < v.size(); ++k) {
        int n = v[k];
        if (n == 0)
          style_ = Style{};
        else if (n == 1)
          style_.attrs |= kBold;
        else if (n == 2)
          style_.attrs |= kDim;
        else if (n == 4)
          style_.attrs |= kUnderline;
        else if (n == 7)
          style_.attrs |= kReverse;
        else if (n == 38 || n == 48) {
          (n == 38 ? style_.fg : style_.bg) = static_cast<int16_t>(v[k + 2]);
          k += 2;
        } else if (n >= 30 && n <= 37)
          style_.fg = static_cast<int16_t>(n - 30);
        else if (n >= 90 && n <= 97)
          style_.fg = static_cast<int16_t>(n - 90 + 8);
        else if (n >= 40 && n <= 47)
          style_.bg = static_cast<int16_t>(n - 40);
        else if (n >= 100 && n <= 107)
          style_.bg = static_cast<int16_t>(n - 100 + 8);
      }
    }
  }
  Screen grid_;
  int x_ = 0, y_ = 0, writes_ = 0;
  Style style_;
};

Screen random_screen(std::mt19937& rng, int w, int h, const Screen* base, int changes) {
  static const char32_t kGlyphs[] = U" abcXYZ█▁⣿│-";
  std::uniform_int_distribution<int> gx(0, w - 1), gy(0, h - 1), gg(0, 12), gc(-1, 255), ga(0, 15);
  Screen s = base ? *base : Screen(w, h);
  for (int i = 0; i < changes; ++i) {
    Style st{static_cast<int16_t>(gc(rng)), static_cast<int16_t>(gc(rng) % 3 == 0 ? gc(rng) : -1),
             static_cast<uint8_t>(ga(rng))};
    s.set(gx(rng), gy(rng), kGlyphs[gg(rng)], st);
  }
  return s;
}

TEST(Renderer, ReplayedFramesReproduceEveryScreen) {
  std::mt19937 rng(7);
  Renderer r(RenderOptions{});
  Vt vt(30, 10);
  Screen cur = random_screen(rng, 30, 10, nullptr, 200);
  for (int frame = 0; frame < 200; ++frame) {
    vt.feed(r.render(cur));
    ASSERT_EQ(vt.grid().to_text(), cur.to_text()) << "frame " << frame;
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < 30; ++x) ASSERT_EQ(vt.grid().at(x, y), cur.at(x, y)) << frame << " " << x << "," << y;
    cur = random_screen(rng, 30, 10, &cur, frame % 7);
  }
}

TEST(Renderer, UnchangedFrameWritesNothing) {
  Renderer r(RenderOptions{});
  Screen s(20, 5);
  s.text(0, 0, "hello", Style{1, -1, kBold});
  std::string first = r.render(s);
  EXPECT_EQ(first.rfind("\x1b[0m\x1b[H\x1b[2J", 0), 0u) << "first frame clears";
  EXPECT_EQ(r.render(s), "");
}

TEST(Renderer, OneChangedCellWritesOnlyIt) {
  Renderer r(RenderOptions{});
  Screen s(40, 10);
  s.text(0, 3, "0123456789", Style{});
  r.render(s);
  s.set(7, 3, U'x', Style{});
  EXPECT_EQ(r.render(s), "\x1b[4;8Hx");
  // Two changes a short gap apart: one jump, the gap rewritten.
  s.set(2, 3, U'a', Style{});
  s.set(5, 3, U'b', Style{});
  EXPECT_EQ(r.render(s), "\x1b[4;3Ha34b");
}

TEST(Renderer, ResizeAndInvalidateRedrawEverything) {
  Renderer r(RenderOptions{});
  Screen a(10, 2);
  a.text(0, 0, "abc", Style{});
  r.render(a);
  Screen b(12, 3);
  b.text(0, 0, "abc", Style{});
  std::string out = r.render(b);
  EXPECT_NE(out.find("\x1b[2J"), std::string::npos);
  EXPECT_NE(out.find("abc"), std::string::npos);
  EXPECT_EQ(r.render(b), "");
  r.invalidate();
  EXPECT_NE(r.render(b).find("\x1b[2J"), std::string::npos);
}

TEST(Renderer, ColourModes) {
  Screen s(4, 1);
  s.set(0, 0, U'x', Style{196, 21, kBold});
  Renderer r256(RenderOptions{ColorMode::k256, false});
  EXPECT_NE(r256.render(s).find("\x1b[0;1;38;5;196;48;5;21mx\x1b[0m"), std::string::npos);
  Renderer r16(RenderOptions{ColorMode::k16, false});
  EXPECT_NE(r16.render(s).find("\x1b[0;1;91;44mx"), std::string::npos);
  Renderer none(RenderOptions{ColorMode::kNone, false});
  EXPECT_NE(none.render(s).find("\x1b[0;1mx"), std::string::npos);
}

TEST(Renderer, AsciiModeWritesNoUtf8) {
  Screen s(4, 1);
  s.text(0, 0, "a█é", Style{});
  Renderer r(RenderOptions{ColorMode::kNone, true});
  std::string out = r.render(s);
  for (unsigned char c : out) EXPECT_LT(c, 0x80);
  EXPECT_NE(out.find("a??"), std::string::npos);
}

TEST(Renderer, Ansi16Mapping) {
  EXPECT_EQ(to_ansi16(9), 9);
  EXPECT_EQ(to_ansi16(196), 9);   // bright red
  EXPECT_EQ(to_ansi16(16), 0);    // black
  EXPECT_EQ(to_ansi16(231), 15);  // white
  EXPECT_EQ(to_ansi16(244), 8);   // grey
  EXPECT_EQ(to_ansi16(-1), -1);
}

}  // namespace
}  // namespace llmon::top
