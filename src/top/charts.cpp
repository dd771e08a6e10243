#include "top/charts.h"

#include <algorithm>
#include <cmath>

namespace llmon::top {
namespace {

constexpr char32_t kBlocks[] = U" ▁▂▃▄▅▆▇█";
constexpr char kRamp[] = " .:-=+*#%@";

double frac(double v, double max) {
  if (!std::isfinite(v) || max <= 0) return NAN;
  return std::clamp(v / max, 0.0, 1.0);
}

// Dots of a braille column filled from the bottom: left column dots 7,3,2,1;
// right column 8,6,5,4 (Unicode's braille patterns, U+2800 + bits).
char32_t braille_bits(int left, int right) {
  static constexpr int kLeft[] = {0x40, 0x04, 0x02, 0x01};
  static constexpr int kRight[] = {0x80, 0x20, 0x10, 0x08};
  int bits = 0;
  for (int i = 0; i < left; ++i) bits |= kLeft[i];
  for (int i = 0; i < right; ++i) bits |= kRight[i];
  return static_cast<char32_t>(0x2800 + bits);
}

int dots(double f) {
  return std::isnan(f) ? 0 : std::clamp(static_cast<int>(std::lround(f * 4)), f > 0 ? 1 : 0, 4);
}

}  // namespace

std::u32string sparkline(const Ring& r, int width, double max, ChartStyle style) {
  std::u32string out;
  if (width <= 0) return out;
  const size_t per_cell = style == ChartStyle::kBraille ? 2 : 1;
  const size_t want = static_cast<size_t>(width) * per_cell;
  const size_t n = std::min(want, r.size());
  const size_t first = r.size() - n;
  // Leading cells without samples stay blank.
  std::vector<double> v(want - n, NAN);
  for (size_t i = 0; i < n; ++i) v.push_back(frac(r.at(first + i), max));
  for (int c = 0; c < width; ++c) {
    if (style == ChartStyle::kBraille) {
      int l = dots(v[2 * c]), rr = dots(v[2 * c + 1]);
      out += (l == 0 && rr == 0) ? U' ' : braille_bits(l, rr);
    } else {
      double f = v[static_cast<size_t>(c)];
      if (std::isnan(f)) {
        out += U' ';
      } else if (style == ChartStyle::kBlock) {
        int lvl = std::clamp(static_cast<int>(std::lround(f * 8)), f > 0 ? 1 : 0, 8);
        out += kBlocks[lvl];
      } else {
        int lvl = std::clamp(static_cast<int>(std::lround(f * 9)), f > 0 ? 1 : 0, 9);
        out += static_cast<char32_t>(kRamp[lvl]);
      }
    }
  }
  return out;
}

std::u32string hbar(double pct, int width, bool ascii) {
  std::u32string out;
  if (width <= 0) return out;
  double f = std::isfinite(pct) ? std::clamp(pct / 100, 0.0, 1.0) : 0;
  if (ascii) {
    int full = static_cast<int>(std::lround(f * width));
    out.append(static_cast<size_t>(full), U'|');
    out.append(static_cast<size_t>(width - full), U' ');
    return out;
  }
  static constexpr char32_t kEighths[] = U" ▏▎▍▌▋▊▉█";
  int eighths = static_cast<int>(std::lround(f * width * 8));
  for (int c = 0; c < width; ++c) {
    int e = std::clamp(eighths - c * 8, 0, 8);
    out += kEighths[e];
  }
  return out;
}

char32_t level_glyph(double pct, bool ascii) {
  double f = std::isfinite(pct) ? std::clamp(pct / 100, 0.0, 1.0) : 0;
  if (ascii) return static_cast<char32_t>(kRamp[std::clamp(static_cast<int>(std::lround(f * 9)), f > 0 ? 1 : 0, 9)]);
  return kBlocks[std::clamp(static_cast<int>(std::lround(f * 8)), f > 0 ? 1 : 0, 8)];
}

}  // namespace llmon::top
