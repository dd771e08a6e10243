// Go string quoting: strconv.Quote, fmt's %q and %#U, unicode.IsPrint (strconv.h).
#include <cstdio>

#include "go/strconv.h"

namespace llmon::go {

namespace {

constexpr char kHex[] = "0123456789abcdef";

bool in(int32_t r, int32_t lo, int32_t hi) {
  return r >= lo && r <= hi;
}

void append_hex(std::string& out, uint32_t v, int digits) {
  for (int s = (digits - 1) * 4; s >= 0; s -= 4) out += kHex[(v >> s) & 0xF];
}

// strconv.appendEscapedRune for `quote`.
void append_escaped_rune(std::string& out, int32_t r, char quote) {
  if (r == quote || r == '\\') {
    out += '\\';
    append_utf8(out, r);
    return;
  }
  if (is_print(r)) {
    append_utf8(out, r);
    return;
  }
  switch (r) {
    case '\a':
      out += "\\a";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\v':
      out += "\\v";
      return;
    default:
      break;
  }
  if (r < ' ' || r == 0x7F) {
    out += "\\x";
    append_hex(out, static_cast<uint32_t>(r), 2);
  } else if (!valid_rune(r) || r < 0x10000) {
    out += "\\u";
    append_hex(out, valid_rune(r) ? static_cast<uint32_t>(r) : 0xFFFDu, 4);
  } else {
    out += "\\U";
    append_hex(out, static_cast<uint32_t>(r), 8);
  }
}

}  // namespace

bool is_print(int32_t r) {
  if (r < 0x20 || r == 0x7F || !valid_rune(r)) return false;
  if (r < 0x7F) return true;
  if (in(r, 0x80, 0xA0) || r == 0xAD) return false;  // C1 controls, NBSP, soft hyphen
  if (in(r, 0x600, 0x605) || r == 0x61C || r == 0x6DD || r == 0x70F || r == 0x180E) return false;
  if (r == 0x1680 || in(r, 0x2000, 0x200F) || in(r, 0x2028, 0x202F) || in(r, 0x205F, 0x206F)) return false;
  if (r == 0x3000 || r == 0xFEFF || in(r, 0xFFF9, 0xFFFB)) return false;
  if (in(r, 0xE000, 0xF8FF) || in(r, 0xFDD0, 0xFDEF) || (r & 0xFFFE) == 0xFFFE) return false;
  if (r == 0x110BD || in(r, 0x1BCA0, 0x1BCA3) || in(r, 0x1D173, 0x1D17A)) return false;
  if (in(r, 0x40000, 0xDFFFF) || in(r, 0xE0000, 0xE00FF) || r >= 0xE01F0) return false;
  return true;
}

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    Rune r = decode_rune(s, i);
    if (r.width == 1 && r.r == kRuneError) {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(s[i]), 2);
    } else {
      append_escaped_rune(out, r.r, '"');
    }
    i += static_cast<size_t>(r.width);
  }
  out += '"';
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_quoted(out, s);
  return out;
}

std::string quote_truncated(std::string_view s, size_t runes) {
  size_t i = 0;
  for (size_t n = 0; n < runes && i < s.size(); ++n) i += static_cast<size_t>(decode_rune(s, i).width);
  return quote(s.substr(0, i));
}

std::string quote_rune(int32_t r) {
  if (!valid_rune(r)) r = kRuneError;
  std::string out = "'";
  append_escaped_rune(out, r, '\'');
  out += '\'';
  return out;
}

std::string format_rune_u(int32_t r) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(r));
  std::string out = buf;
  if (valid_rune(r) && is_print(r)) {
    out += " '";
    append_utf8(out, r);
    out += '\'';
  }
  return out;
}

}  // namespace llmon::go
