// Go string quoting and unquoting as PromQL uses it (go_strconv.h).
#include <cstdio>

#include "base/utf8.h"
#include "promql/go_strconv.h"

namespace llmon::promql::go {

namespace {

constexpr char kHex[] = "0123456789abcdef";

bool in(int32_t r, int32_t lo, int32_t hi) {
  return r >= lo && r <= hi;
}

bool valid_rune(int32_t r) {
  return r >= 0 && r <= 0x10FFFF && !in(r, 0xD800, 0xDFFF);
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

// Value of one hex/octal digit, or 16.
int digit_val(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 16;
}

// strconv.UnquoteChar on s[i:], appending the decoded bytes; false on a
// syntax error.
bool unquote_char(std::string_view s, size_t& i, char quote, std::string& out) {
  char c = s[i];
  if (c == quote && (quote == '\'' || quote == '"')) return false;
  if (c != '\\') {
    Rune r = decode_rune(s, i);
    out.append(s.substr(i, static_cast<size_t>(r.width)));
    i += static_cast<size_t>(r.width);
    return true;
  }
  if (i + 1 >= s.size()) return false;
  c = s[i + 1];
  i += 2;
  switch (c) {
    case 'a':
      out += '\a';
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'v':
      out += '\v';
      return true;
    case '\\':
      out += '\\';
      return true;
    case '\'':
    case '"':
      if (c != quote) return false;
      out += c;
      return true;
    case 'x':
    case 'u':
    case 'U': {
      int n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      if (s.size() - i < static_cast<size_t>(n)) return false;
      uint32_t v = 0;
      for (int j = 0; j < n; ++j) {
        int d = digit_val(s[i + static_cast<size_t>(j)]);
        if (d >= 16) return false;
        v = v * 16 + static_cast<uint32_t>(d);
      }
      i += static_cast<size_t>(n);
      if (c == 'x') {
        out += static_cast<char>(v);
        return true;
      }
      if (v > 0x10FFFF || !valid_rune(static_cast<int32_t>(v))) return false;
      append_utf8(out, static_cast<int32_t>(v));
      return true;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      if (s.size() - i < 2) return false;
      uint32_t v = static_cast<uint32_t>(c - '0');
      for (int j = 0; j < 2; ++j) {
        int d = digit_val(s[i + static_cast<size_t>(j)]);
        if (d >= 8) return false;
        v = v * 8 + static_cast<uint32_t>(d);
      }
      i += 2;
      if (v > 255) return false;
      out += static_cast<char>(v);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

Rune decode_rune(std::string_view s, size_t i) {
  if (i >= s.size()) return {kEof, 0};
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  size_t n = base::utf8_sequence_length(s, i);
  if (n == 0) return {kRuneError, 1};
  int32_t r = c & (0xFF >> (n + 1));
  for (size_t k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {r, static_cast<int>(n)};
}

void append_utf8(std::string& out, int32_t r) {
  if (!valid_rune(r)) r = kRuneError;
  auto u = static_cast<uint32_t>(r);
  if (u < 0x80) {
    out += static_cast<char>(u);
  } else if (u < 0x800) {
    out += static_cast<char>(0xC0 | (u >> 6));
    out += static_cast<char>(0x80 | (u & 0x3F));
  } else if (u < 0x10000) {
    out += static_cast<char>(0xE0 | (u >> 12));
    out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (u & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (u >> 18));
    out += static_cast<char>(0x80 | ((u >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (u & 0x3F));
  }
}

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

Expected<std::string> unquote(std::string_view s) {
  const Status bad = Status::error("invalid syntax");
  if (s.size() < 2 || s.front() != s.back()) return bad;
  char q = s.front();
  std::string_view body = s.substr(1, s.size() - 2);
  if (q == '`') {
    if (body.find('`') != std::string_view::npos) return bad;
    return std::string(body);
  }
  if (q != '"' && q != '\'') return bad;
  if (body.find('\n') != std::string_view::npos) return bad;
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size();)
    if (!unquote_char(body, i, q, out)) return bad;
  return out;
}

}  // namespace llmon::promql::go
