// The colours and attributes of `llmon top`, in one place (xterm 256-colour
// indexes; the renderer maps them to the 16 ANSI colours or drops them).
#pragma once

#include <cmath>

#include "top/screen.h"

namespace llmon::top::palette {

inline constexpr Style kTitle{kDefaultColor, kDefaultColor, kReverse | kBold};
inline constexpr Style kHeader{252, 237, kBold};
inline constexpr Style kLabel{75, kDefaultColor, kBold};
inline constexpr Style kText{};
inline constexpr Style kDimText{245, kDefaultColor, 0};
inline constexpr Style kOk{76, kDefaultColor, 0};
inline constexpr Style kWarn{214, kDefaultColor, kBold};
inline constexpr Style kCrit{196, kDefaultColor, kBold};
inline constexpr Style kSelected{kDefaultColor, kDefaultColor, kReverse};
inline constexpr Style kPrompt{226, kDefaultColor, kBold};
inline constexpr Style kChart{81, kDefaultColor, 0};
inline constexpr Style kMemChart{177, kDefaultColor, 0};

// Green below 50 %, yellow below 80 %, red above: bars and levels.
inline Style level(double pct) {
  if (!std::isfinite(pct) || pct < 50) return Style{76, kDefaultColor, 0};
  if (pct < 80) return Style{220, kDefaultColor, 0};
  return Style{196, kDefaultColor, 0};
}

}  // namespace llmon::top::palette
