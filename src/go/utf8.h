// UTF-8 as Go's unicode/utf8 package decodes and encodes it: one rune at a
// time, an invalid byte read as U+FFFD of width 1, an invalid rune (a
// surrogate, or above U+10FFFF) written as U+FFFD. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llmon::go {

constexpr int32_t kRuneError = 0xFFFD;
constexpr int32_t kEof = -1;

struct Rune {
  int32_t r = kEof;  // kEof at the end; kRuneError (width 1) for an invalid byte
  int width = 0;
};

// utf8.ValidRune.
constexpr bool valid_rune(int64_t r) {
  return r >= 0 && r <= 0x10FFFF && !(r >= 0xD800 && r <= 0xDFFF);
}
// utf8.DecodeRuneInString(s[i:]).
Rune decode_rune(std::string_view s, size_t i);
// utf8.AppendRune.
void append_utf8(std::string& out, int32_t r);

}  // namespace llmon::go
