#include "top/renderer.h"

#include <climits>
#include <cstdio>

namespace llmon::top {
namespace {

// A cursor jump costs about as many bytes as a few rewritten cells.
constexpr int kMaxRewriteGap = 4;

void move_to(std::string& out, int x, int y) {
  char buf[24];
  int n = std::snprintf(buf, sizeof buf, "\x1b[%d;%dH", y + 1, x + 1);
  out.append(buf, static_cast<size_t>(n));
}

struct Rgb {
  int r, g, b;
};

Rgb rgb_of(int c) {
  static constexpr Rgb kAnsi[16] = {{0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
                                    {0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
                                    {127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
                                    {92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255}};
  if (c < 16) return kAnsi[c];
  if (c < 232) {
    static constexpr int kLevel[6] = {0, 95, 135, 175, 215, 255};
    int i = c - 16;
    return {kLevel[i / 36], kLevel[(i / 6) % 6], kLevel[i % 6]};
  }
  int v = 8 + 10 * (c - 232);
  return {v, v, v};
}

}  // namespace

int to_ansi16(int c) {
  if (c < 0) return c;
  if (c < 16) return c;
  Rgb want = rgb_of(c);
  int best = 0, best_d = INT_MAX;
  for (int i = 0; i < 16; ++i) {
    Rgb a = rgb_of(i);
    int d = (a.r - want.r) * (a.r - want.r) + (a.g - want.g) * (a.g - want.g) + (a.b - want.b) * (a.b - want.b);
    if (d < best_d) {
      best_d = d;
      best = i;
    }
  }
  return best;
}

void Renderer::sgr(std::string& out, const Style& st) const {
  out += "\x1b[0";
  if (st.attrs & kBold) out += ";1";
  if (st.attrs & kDim) out += ";2";
  if (st.attrs & kUnderline) out += ";4";
  if (st.attrs & kReverse) out += ";7";
  auto color = [&](int c, int base) {
    if (c < 0 || opts_.colors == ColorMode::kNone) return;
    if (opts_.colors == ColorMode::k16) {
      int a = to_ansi16(c);
      out += ";" + std::to_string(a < 8 ? base + a : base + 60 + a - 8);
    } else {
      out += ";" + std::to_string(base + 8) + ";5;" + std::to_string(c);
    }
  };
  color(st.fg, 30);
  color(st.bg, 40);
  out += 'm';
}

std::string Renderer::render(const Screen& next) {
  std::string out;
  const bool full = !valid_ || prev_.width() != next.width() || prev_.height() != next.height();
  if (full) {
    out += "\x1b[0m\x1b[H\x1b[2J";
    prev_ = Screen(next.width(), next.height());  // blank: what the clear left
  }
  Style cur;  // every frame starts and ends with attributes reset
  auto put = [&](const Cell& c) {
    if (c.style != cur) {
      sgr(out, c.style);
      cur = c.style;
    }
    if (opts_.ascii && c.ch > 0x7e)
      out += '?';
    else
      append_utf8(out, c.ch);
  };
  const int w = next.width();
  int cx = -1, cy = -1;  // where the cursor is, -1: unknown
  for (int y = 0; y < next.height(); ++y) {
    int x = 0;
    while (x < w) {
      if (next.at(x, y) == prev_.at(x, y)) {
        ++x;
        continue;
      }
      // The run to write: changed cells, with gaps of a few unchanged ones.
      int end = x;
      for (int k = x + 1; k < w && k - end <= kMaxRewriteGap; ++k)
        if (next.at(k, y) != prev_.at(k, y)) end = k;
      if (cy == y && cx >= 0 && cx <= x && x - cx <= kMaxRewriteGap) {
        for (int k = cx; k < x; ++k) put(next.at(k, y));  // cheaper than a jump
      } else if (cx != x || cy != y) {
        move_to(out, x, y);
      }
      for (int k = x; k <= end; ++k) put(next.at(k, y));
      cx = end + 1;
      cy = y;
      x = end + 1;
    }
  }
  if (cur != Style{}) out += "\x1b[0m";
  prev_ = next;
  valid_ = true;
  return out;
}

}  // namespace llmon::top
