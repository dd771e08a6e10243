// The small charts of `llmon top`, as code points for Screen::text():
// sparklines of a Ring (braille, two samples a cell and four dot rows, as
// btop and nvtop draw; eighth blocks, one sample a cell; ASCII ramp), bars
// filled to a percentage and one-cell levels (per-core CPU). Pure functions;
// NaN samples are gaps.
#pragma once

#include <string>

#include "top/history.h"

namespace llmon::top {

enum class ChartStyle { kBraille, kBlock, kAscii };

// The newest samples of `r` that fit `width` cells, right-aligned, scaled to
// 0..max (values outside are clamped).
std::u32string sparkline(const Ring& r, int width, double max, ChartStyle style);
// `width` cells filled to pct of 100: eighth blocks in UTF-8, '|' and ' ' in ASCII.
std::u32string hbar(double pct, int width, bool ascii);
// One cell for 0..100: ' ' and ▁..█, or the ASCII ramp " .:-=+*#%@".
char32_t level_glyph(double pct, bool ascii);

}  // namespace llmon::top
