#include "top/screen.h"

#include <algorithm>

namespace llmon::top {

Screen::Screen(int width, int height)
    : width_(std::max(0, width)), height_(std::max(0, height)), cells_(static_cast<size_t>(width_) * height_) {}

void Screen::set(int x, int y, char32_t ch, Style st) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  if (ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0) || !is_single_width(ch)) ch = U'?';
  cells_[static_cast<size_t>(y) * width_ + x] = Cell{ch, st};
}

int Screen::text(int x, int y, std::u32string_view t, Style st, int max_cols) {
  int n = 0;
  for (char32_t c : t) {
    if (n >= max_cols) break;
    set(x + n, y, c, st);
    ++n;
  }
  return n;
}

int Screen::text(int x, int y, std::string_view t, Style st, int max_cols) {
  return text(x, y, std::u32string_view(decode_utf8(t)), st, max_cols);
}

void Screen::fill(int x, int y, int w, int h, char32_t ch, Style st) {
  for (int r = y; r < y + h; ++r)
    for (int c = x; c < x + w; ++c) set(c, r, ch, st);
}

void Screen::restyle(int x, int y, int w, Style st) {
  if (y < 0 || y >= height_) return;
  for (int c = std::max(0, x); c < std::min(width_, x + w); ++c) cells_[static_cast<size_t>(y) * width_ + c].style = st;
}

void Screen::clear() {
  std::fill(cells_.begin(), cells_.end(), Cell{});
}

std::string Screen::to_text() const {
  std::string out;
  for (int y = 0; y < height_; ++y) {
    std::string row;
    for (int x = 0; x < width_; ++x) append_utf8(row, at(x, y).ch);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row;
    out += '\n';
  }
  return out;
}

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    char32_t c = len == 1 ? b : b & (0x7f >> len);
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      auto cb = static_cast<unsigned char>(s[i + k]);
      if ((cb & 0xc0) != 0x80) {
        ok = false;
        break;
      }
      c = (c << 6) | (cb & 0x3f);
    }
    static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (!ok || c < kMin[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    out += c;
    i += len;
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xe0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

bool is_single_width(char32_t c) {
  // Combining marks (zero width) and the East Asian wide/fullwidth blocks and
  // emoji (two columns), after Markus Kuhn's wcwidth ranges, coarsened.
  struct Range {
    char32_t lo, hi;
  };
  static constexpr Range kNot[] = {
      {0x0300, 0x036f},   {0x0483, 0x0489},   {0x0591, 0x05bd},  {0x200b, 0x200f}, {0x1100, 0x115f}, {0x20d0, 0x20ff},
      {0x2e80, 0x303e},   {0x3041, 0x33ff},   {0x3400, 0x4dbf},  {0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xac00, 0xd7a3},
      {0xf900, 0xfaff},   {0xfe00, 0xfe0f},   {0xfe20, 0xfe2f},  {0xfe30, 0xfe4f}, {0xff00, 0xff60}, {0xffe0, 0xffe6},
      {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x3fffd}};
  if (c < 0x300) return true;
  for (const Range& r : kNot)
    if (c >= r.lo && c <= r.hi) return false;
  return true;
}

int text_width(std::string_view utf8) {
  return static_cast<int>(decode_utf8(utf8).size());
}

}  // namespace llmon::top
