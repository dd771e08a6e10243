#include "base/utf8.h"

namespace llmon::base {

size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + need >= s.size()) return 0;  // truncated sequence
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k <= need; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return need + 1;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 3);
  bool in_invalid = false;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      if (!in_invalid) out += "\xEF\xBF\xBD";
      in_invalid = true;
      ++i;
      continue;
    }
    in_invalid = false;
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace llmon::base
