#include "top/keys.h"

#include <charconv>

#include "top/screen.h"

namespace llmon::top {
namespace {

// The longest sequence we wait for; longer runs without a final byte are junk.
constexpr size_t kMaxSequence = 32;

KeyEvent key(Key k) {
  KeyEvent e;
  e.key = k;
  return e;
}

KeyEvent chr(char32_t c, bool ctrl = false, bool alt = false) {
  KeyEvent e;
  e.key = Key::kChar;
  e.ch = c;
  e.ctrl = ctrl;
  e.alt = alt;
  return e;
}

// The key of one byte below 0x80 outside a sequence.
KeyEvent control_or_ascii(unsigned char b, bool alt) {
  KeyEvent e;
  switch (b) {
    case '\r':
    case '\n':
      e = key(Key::kEnter);
      break;
    case '\t':
      e = key(Key::kTab);
      break;
    case 0x7f:
    case 0x08:
      e = key(Key::kBackspace);
      break;
    case 0x1b:
      e = key(Key::kEscape);
      break;
    case 0x00:
      e = chr(U' ', true);
      break;
    default:
      if (b < 0x20)
        e = chr(static_cast<char32_t>('a' + b - 1), true);
      else
        e = chr(b);
  }
  e.alt = alt;
  return e;
}

// Parameters "1;5" of a CSI sequence; missing ones are 0.
std::vector<int> params(std::string_view p) {
  std::vector<int> out;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find(';', i);
    if (j == std::string_view::npos) j = p.size();
    int v = 0;
    std::from_chars(p.data() + i, p.data() + j, v);
    out.push_back(v);
    i = j + 1;
  }
  return out;
}

void apply_modifier(KeyEvent& e, int m) {
  if (m < 2) return;
  int bits = m - 1;
  e.shift = bits & 1;
  e.alt = bits & 2;
  e.ctrl = bits & 4;
}

KeyEvent letter_key(char final) {
  switch (final) {
    case 'A':
      return key(Key::kUp);
    case 'B':
      return key(Key::kDown);
    case 'C':
      return key(Key::kRight);
    case 'D':
      return key(Key::kLeft);
    case 'H':
      return key(Key::kHome);
    case 'F':
      return key(Key::kEnd);
    case 'Z':
      return key(Key::kBackTab);
    case 'P':
      return key(Key::kF1);
    case 'Q':
      return key(Key::kF2);
    case 'R':
      return key(Key::kF3);
    case 'S':
      return key(Key::kF4);
    default:
      return key(Key::kUnknown);
  }
}

KeyEvent tilde_key(int n) {
  switch (n) {
    case 1:
    case 7:
      return key(Key::kHome);
    case 2:
      return key(Key::kInsert);
    case 3:
      return key(Key::kDelete);
    case 4:
    case 8:
      return key(Key::kEnd);
    case 5:
      return key(Key::kPageUp);
    case 6:
      return key(Key::kPageDown);
    case 11:
      return key(Key::kF1);
    case 12:
      return key(Key::kF2);
    case 13:
      return key(Key::kF3);
    case 14:
      return key(Key::kF4);
    case 15:
      return key(Key::kF5);
    case 17:
      return key(Key::kF6);
    case 18:
      return key(Key::kF7);
    case 19:
      return key(Key::kF8);
    case 20:
      return key(Key::kF9);
    case 21:
      return key(Key::kF10);
    case 23:
      return key(Key::kF11);
    case 24:
      return key(Key::kF12);
    default:
      return key(Key::kUnknown);
  }
}

// ESC [ < b ; x ; y (M|m): an SGR mouse report (xterm's mode 1006).
KeyEvent mouse(std::string_view p, char final) {
  std::vector<int> v = params(p);
  if (v.size() != 3 || v[1] < 1 || v[2] < 1) return key(Key::kUnknown);
  KeyEvent e = key(Key::kMouse);
  int b = v[0];
  e.shift = b & 4;
  e.alt = b & 8;
  e.ctrl = b & 16;
  e.motion = b & 32;
  int base = b & ~(4 | 8 | 16 | 32);
  switch (base) {
    case 0:
      e.button = MouseButton::kLeft;
      break;
    case 1:
      e.button = MouseButton::kMiddle;
      break;
    case 2:
      e.button = MouseButton::kRight;
      break;
    case 64:
      e.button = MouseButton::kWheelUp;
      break;
    case 65:
      e.button = MouseButton::kWheelDown;
      break;
    default:
      e.button = MouseButton::kOther;
  }
  e.pressed = final == 'M';
  e.x = v[1] - 1;
  e.y = v[2] - 1;
  return e;
}

// Parses a CSI sequence starting at s[0] == ESC, s[1] == '['. Returns its
// length, 0 if incomplete.
size_t parse_csi(std::string_view s, KeyEvent& out) {
  size_t i = 2;
  // Parameter bytes 0x30-0x3f, intermediate 0x20-0x2f, final 0x40-0x7e.
  while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x20 && static_cast<unsigned char>(s[i]) <= 0x3f) ++i;
  if (i >= s.size()) return 0;
  auto f = static_cast<unsigned char>(s[i]);
  if (f < 0x40 || f > 0x7e) {
    out = key(Key::kUnknown);
    return i;  // not a CSI sequence after all: drop what we have
  }
  std::string_view p = s.substr(2, i - 2);
  char final = static_cast<char>(f);
  if (!p.empty() && p[0] == '<' && (final == 'M' || final == 'm')) {
    out = mouse(p.substr(1), final);
  } else if (final == '~') {
    std::vector<int> v = params(p);
    out = tilde_key(v[0]);
    if (v.size() > 1) apply_modifier(out, v[1]);
  } else {
    out = letter_key(final);
    std::vector<int> v = params(p);
    if (v.size() > 1) apply_modifier(out, v[1]);
    if (final == 'Z') out.shift = true;
  }
  return i + 1;
}

}  // namespace

std::vector<KeyEvent> KeyParser::feed(std::string_view bytes) {
  buf_.append(bytes);
  std::vector<KeyEvent> out;
  size_t i = 0;
  std::string_view s(buf_);
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b == 0x1b) {
      if (i + 1 >= s.size()) break;  // lone ESC: wait (flush() decides)
      auto n = static_cast<unsigned char>(s[i + 1]);
      if (n == '[') {
        KeyEvent e;
        size_t len = parse_csi(s.substr(i), e);
        if (len == 0) {
          if (s.size() - i > kMaxSequence) {
            out.push_back(key(Key::kUnknown));
            i = s.size();
          }
          break;
        }
        out.push_back(e);
        i += len;
      } else if (n == 'O') {
        if (i + 2 >= s.size()) break;
        out.push_back(letter_key(s[i + 2]));
        i += 3;
      } else if (n == 0x1b) {
        out.push_back(key(Key::kEscape));  // ESC ESC: the first one was a key
        i += 1;
      } else if (n < 0x80) {
        out.push_back(control_or_ascii(n, true));
        i += 2;
      } else {
        out.push_back(key(Key::kEscape));
        i += 1;
      }
      continue;
    }
    if (b < 0x80) {
      out.push_back(control_or_ascii(b, false));
      ++i;
      continue;
    }
    int len = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 1;
    if (i + len > s.size()) break;  // the rest of the character is coming
    std::u32string c = decode_utf8(s.substr(i, len));
    out.push_back(chr(c.size() == 1 ? c[0] : U'\uFFFD'));
    i += c.size() == 1 ? len : 1;
  }
  buf_.erase(0, i);
  return out;
}

std::vector<KeyEvent> KeyParser::flush() {
  std::vector<KeyEvent> out;
  if (buf_.empty()) return out;
  std::string rest;
  rest.swap(buf_);
  if (rest[0] == 0x1b) {
    out.push_back(key(Key::kEscape));
    rest.erase(0, 1);
  }
  for (KeyEvent& e : feed(rest)) out.push_back(e);
  // Whatever still waits (an unfinished sequence after the ESC) is junk.
  if (!buf_.empty()) {
    buf_.clear();
    out.push_back(key(Key::kUnknown));
  }
  return out;
}

std::string key_name(const KeyEvent& e) {
  static constexpr const char* kNames[] = {
      "",     "Enter", "Tab",  "Shift-Tab", "Backspace", "Esc",    "Up",  "Down", "Left",  "Right",
      "Home", "End",   "PgUp", "PgDn",      "Insert",    "Delete", "F1",  "F2",   "F3",    "F4",
      "F5",   "F6",    "F7",   "F8",        "F9",        "F10",    "F11", "F12",  "Mouse", "?"};
  std::string mods;
  if (e.ctrl) mods += "Ctrl-";
  if (e.alt) mods += "Alt-";
  if (e.key != Key::kChar) {
    if (e.shift && e.key != Key::kBackTab) mods += "Shift-";
    return mods + kNames[static_cast<int>(e.key)];
  }
  std::string c;
  append_utf8(c, e.ch);
  return mods + c;
}

}  // namespace llmon::top
