// The `?` overlay: keys and the FLAGS column's codes.
#include <algorithm>

#include "top/format.h"
#include "top/layout_parts.h"
#include "top/palette.h"

namespace llmon::top::detail {

void draw_help(Screen& s, const DrawOptions& o) {
  static constexpr const char* kLines[] = {
      "llmon top: keys",
      "",
      "q, Ctrl-C      quit",
      "?, h, F1       this help (any key closes it)",
      "s, >, .        sort by the next column",
      "<, ,           sort by the previous column",
      "r, I           reverse the sort order",
      "/              filter: user, container, pod, command",
      "Up/Down, j     select a process (PgUp/PgDn, Home/End)",
      "Enter          details of the selected process",
      "t              tree view (children under parents)",
      "k, F9          send a signal (asks to confirm)",
      "[ ], Left/Right  agent mode: back/forward in history",
      "mouse          click selects / sorts, wheel moves",
      "Esc            clear the selection and the filter",
      "Ctrl-L         repaint the screen",
      "FLAGS: PWR power cap  STH/HTH sw/hw thermal slowdown",
      "HWS hw slowdown  BRK power brake  SYNC sync boost",
      "APP app clocks  DSP display clocks  XIDn last Xid",
      "ECC volatile double-bit errors  LOST GPU lost",
      "DEGRADED/UNHEALTHY health verdict  MIGn instances",
  };
  constexpr int kRows = static_cast<int>(sizeof kLines / sizeof kLines[0]);
  int inner = 0;
  for (const char* l : kLines) inner = std::max(inner, text_width(l));
  const int bw = std::min(s.width(), inner + 4), bh = std::min(s.height(), kRows + 2);
  const int x0 = (s.width() - bw) / 2, y0 = std::max(0, (s.height() - bh) / 2);
  const Style box{palette::kLabel.fg, 235, 0};
  const Style text{252, 235, 0};
  s.fill(x0, y0, bw, bh, U' ', text);
  const char32_t h = o.ascii ? U'-' : U'─', vv = o.ascii ? U'|' : U'│';
  for (int x = x0 + 1; x < x0 + bw - 1; ++x) {
    s.set(x, y0, h, box);
    s.set(x, y0 + bh - 1, h, box);
  }
  for (int y = y0 + 1; y < y0 + bh - 1; ++y) {
    s.set(x0, y, vv, box);
    s.set(x0 + bw - 1, y, vv, box);
  }
  s.set(x0, y0, o.ascii ? U'+' : U'┌', box);
  s.set(x0 + bw - 1, y0, o.ascii ? U'+' : U'┐', box);
  s.set(x0, y0 + bh - 1, o.ascii ? U'+' : U'└', box);
  s.set(x0 + bw - 1, y0 + bh - 1, o.ascii ? U'+' : U'┘', box);
  for (int i = 0; i < kRows && i < bh - 2; ++i)
    s.text(x0 + 2, y0 + 1 + i, kLines[i], i == 0 ? Style{palette::kPrompt.fg, 235, kBold} : text, bw - 4);
}

}  // namespace llmon::top::detail
