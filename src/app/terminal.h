// RawTerminal: `llmon top`'s hold on the terminal. open() saves the termios
// state, switches to raw input (no echo, no line editing, no signal keys:
// Ctrl-C and Ctrl-Z arrive as bytes), the alternate screen, a hidden cursor,
// autowrap off and (if asked) SGR mouse reports; restore() undoes all of it
// and runs from the destructor too, so every return path leaves the shell as
// it was. Signals are the caller's (top_command.cpp reads them from a
// signalfd). Owns no file descriptor; one per process, one thread.
#pragma once

#include <termios.h>

#include <memory>
#include <string_view>

#include "base/status.h"

namespace llmon::app {

class RawTerminal {
 public:
  static Expected<std::unique_ptr<RawTerminal>> open(int in_fd, int out_fd, bool mouse);
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

  // Leaves raw mode and the alternate screen (idempotent); enter() goes back
  // (after a Ctrl-Z suspension).
  void restore();
  bool enter();
  // Columns and rows (ioctl TIOCGWINSZ); 80x24 when the terminal does not say.
  void size(int& cols, int& rows) const;
  bool write_all(std::string_view bytes) const;

 private:
  RawTerminal(int in_fd, int out_fd, bool mouse, const termios& saved)
      : in_(in_fd), out_(out_fd), mouse_(mouse), saved_(saved) {}
  int in_, out_;
  bool mouse_;
  termios saved_;
  bool raw_ = false;
};

}  // namespace llmon::app
