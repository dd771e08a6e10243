// KeyParser: terminal input bytes -> key events. Pure: bytes in, events out,
// no reads and no clock. Understands UTF-8 characters, control keys (Ctrl-A
// .. Ctrl-Z, Tab, Enter, Backspace as 0x7f or 0x08), Alt+key (ESC prefix),
// the xterm/VT220 cursor and editing keys in both CSI (ESC [) and SS3
// (ESC O) forms with modifiers (ESC [1;5A), and SGR mouse reports
// (ESC [<b;x;yM / m, docs/top.md). A sequence split across reads is kept
// until the rest arrives; a lone ESC is ambiguous (Escape, or the start of a
// sequence), so it stays pending until the caller, having seen no more bytes
// for a short while, calls flush(). Unknown sequences give Key::kUnknown,
// never stray characters. Not thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmon::top {

enum class Key {
  kChar,  // ch set; ctrl/alt as modifiers (Ctrl-C: ch 'c', ctrl)
  kEnter,
  kTab,
  kBackTab,
  kBackspace,
  kEscape,
  kUp,
  kDown,
  kLeft,
  kRight,
  kHome,
  kEnd,
  kPageUp,
  kPageDown,
  kInsert,
  kDelete,
  kF1,
  kF2,
  kF3,
  kF4,
  kF5,
  kF6,
  kF7,
  kF8,
  kF9,
  kF10,
  kF11,
  kF12,
  kMouse,
  kUnknown,
};

enum class MouseButton { kLeft, kMiddle, kRight, kWheelUp, kWheelDown, kOther };

struct KeyEvent {
  Key key = Key::kUnknown;
  char32_t ch = 0;
  bool ctrl = false, alt = false, shift = false;
  // Key::kMouse: the button, whether pressed (false: released), the cell
  // (0-based column and row), and whether it is a motion report.
  MouseButton button = MouseButton::kOther;
  bool pressed = false, motion = false;
  int x = 0, y = 0;

  bool is_char(char32_t c) const { return key == Key::kChar && ch == c && !ctrl && !alt; }
  bool is_ctrl(char32_t c) const { return key == Key::kChar && ch == c && ctrl; }
};

class KeyParser {
 public:
  // The events the bytes complete; an unfinished tail stays pending.
  std::vector<KeyEvent> feed(std::string_view bytes);
  // The pending bytes as keys: a lone ESC is Escape, what follows it keys of
  // their own, and an unfinished tail Key::kUnknown.
  std::vector<KeyEvent> flush();
  bool pending() const { return !buf_.empty(); }

 private:
  std::string buf_;
};

// A name for messages and the help screen ("Up", "Ctrl-C", "x").
std::string key_name(const KeyEvent& e);

}  // namespace llmon::top
