// Screen: the text grid `llmon top` draws into, one Cell (a code point and
// its Style) per terminal column and row. What the layout writes and what the
// renderer diffs; it knows nothing of terminals or escape sequences. Every
// code point takes one column: East Asian wide and combining characters are
// stored as '?' (a command name must never shift the columns after it).
// Writes outside the grid are clipped. A plain value; not thread-safe.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::top {

// A colour: kDefault or an xterm 256-colour index (0-15 the ANSI ones).
inline constexpr int16_t kDefaultColor = -1;

enum Attr : uint8_t { kBold = 1, kDim = 2, kUnderline = 4, kReverse = 8 };

struct Style {
  int16_t fg = kDefaultColor, bg = kDefaultColor;
  uint8_t attrs = 0;  // Attr bits
  bool operator==(const Style&) const = default;
};

struct Cell {
  char32_t ch = U' ';
  Style style;
  bool operator==(const Cell&) const = default;
};

class Screen {
 public:
  Screen() = default;
  Screen(int width, int height);

  int width() const { return width_; }
  int height() const { return height_; }
  const Cell& at(int x, int y) const { return cells_[static_cast<size_t>(y) * width_ + x]; }

  void set(int x, int y, char32_t ch, Style st);
  // Writes UTF-8 `text` from (x, y), at most max_cols columns; invalid bytes
  // become U+FFFD, control characters '?'. Returns the columns written.
  int text(int x, int y, std::string_view text, Style st, int max_cols = INT_MAX);
  // Same for code points already decoded.
  int text(int x, int y, std::u32string_view text, Style st, int max_cols = INT_MAX);
  void fill(int x, int y, int w, int h, char32_t ch, Style st);
  // Sets the style of cells already written (selection bars, headers).
  void restyle(int x, int y, int w, Style st);
  void clear();

  // The characters, rows joined by '\n', trailing blanks of each row cut:
  // what `tmux capture-pane -p` shows, for golden files.
  std::string to_text() const;

 private:
  int width_ = 0, height_ = 0;
  std::vector<Cell> cells_;
};

// UTF-8 <-> code points (decode replaces invalid input with U+FFFD).
std::u32string decode_utf8(std::string_view s);
void append_utf8(std::string& out, char32_t c);
// Display width 1 for what Screen stores as is; false for wide or
// zero-width code points (stored as '?').
bool is_single_width(char32_t c);
// Columns `text` takes once written (code points, as Screen counts).
int text_width(std::string_view utf8);

}  // namespace llmon::top
