// 64-bit FNV-1a, the label-set fingerprint llmon uses in the store and in
// notification routing: each field is hashed followed by a 0xff byte, which
// never occurs in UTF-8, so ("ab","c") and ("a","bc") differ. Not
// cryptographic; stable across runs and platforms.
#pragma once

#include <cstdint>
#include <string_view>

namespace llmon::base {

inline constexpr uint64_t kFnv1aOffset = 0xcbf29ce484222325ull;

inline uint64_t fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// fnv1a of s, then of the 0xff separator.
inline uint64_t fnv1a_field(uint64_t h, std::string_view s) {
  return fnv1a(fnv1a(h, s), "\xff");
}

}  // namespace llmon::base
