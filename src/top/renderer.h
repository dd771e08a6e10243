// Renderer: turns successive Screens into the ANSI/VT100 bytes that bring a
// terminal from the last frame to the next, writing only the cells that
// changed (no clearing between frames, hence no flicker). The first frame,
// a frame of another size and the frame after invalidate() are full redraws
// (clear, then every non-blank cell). It writes bytes, never to a terminal:
// the caller owns the file descriptor. Assumes autowrap is off (the
// terminal set-up sends CSI ?7l) and that every frame ends with the
// attributes reset. Not thread-safe.
#pragma once

#include <string>

#include "top/screen.h"

namespace llmon::top {

enum class ColorMode { kNone, k16, k256 };

struct RenderOptions {
  ColorMode colors = ColorMode::k256;
  bool ascii = false;  // every code point above 0x7e is written as '?'
};

class Renderer {
 public:
  explicit Renderer(RenderOptions opts) : opts_(opts) {}

  std::string render(const Screen& next);
  void invalidate() { valid_ = false; }

 private:
  void sgr(std::string& out, const Style& st) const;

  RenderOptions opts_;
  Screen prev_;
  bool valid_ = false;
};

// The nearest of the 16 ANSI colours to an xterm 256-colour index.
int to_ansi16(int color256);

}  // namespace llmon::top
