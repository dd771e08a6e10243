#include "app/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace llmon::app {
namespace {

// Alternate screen, hidden cursor, no autowrap (the renderer relies on it).
constexpr std::string_view kEnter = "\x1b[?1049h\x1b[?25l\x1b[?7l";
constexpr std::string_view kMouseOn = "\x1b[?1000h\x1b[?1006h";
constexpr std::string_view kMouseOff = "\x1b[?1006l\x1b[?1000l";
constexpr std::string_view kLeave = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l";

}  // namespace

Expected<std::unique_ptr<RawTerminal>> RawTerminal::open(int in_fd, int out_fd, bool mouse) {
  if (!isatty(in_fd) || !isatty(out_fd)) return Status::error("llmon top needs a terminal on stdin and stdout");
  termios saved{};
  if (tcgetattr(in_fd, &saved) != 0) return Status::error(std::string("tcgetattr: ") + std::strerror(errno));
  std::unique_ptr<RawTerminal> t(new RawTerminal(in_fd, out_fd, mouse, saved));
  if (!t->enter()) return Status::error(std::string("tcsetattr: ") + std::strerror(errno));
  return t;
}

RawTerminal::~RawTerminal() {
  restore();
}

bool RawTerminal::enter() {
  termios raw = saved_;
  cfmakeraw(&raw);
  raw.c_oflag |= OPOST | ONLCR;  // keep "\n" -> "\r\n" for anything printed by accident
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr(in_, TCSAFLUSH, &raw) != 0) return false;
  raw_ = true;
  write_all(kEnter);
  if (mouse_) write_all(kMouseOn);
  return true;
}

void RawTerminal::restore() {
  if (!raw_) return;
  if (mouse_) write_all(kMouseOff);
  write_all(kLeave);
  tcsetattr(in_, TCSAFLUSH, &saved_);
  raw_ = false;
}

void RawTerminal::size(int& cols, int& rows) const {
  winsize ws{};
  if (ioctl(out_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    cols = ws.ws_col;
    rows = ws.ws_row;
    return;
  }
  cols = 80;
  rows = 24;
}

bool RawTerminal::write_all(std::string_view b) const {
  while (!b.empty()) {
    ssize_t n = ::write(out_, b.data(), b.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    b.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace llmon::app
