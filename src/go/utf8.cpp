// UTF-8 decoding and encoding as Go's unicode/utf8 does it (utf8.h).
#include "go/utf8.h"

#include "base/utf8.h"

namespace llmon::go {

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

}  // namespace llmon::go
