// ByteEscaper: copies a string, replacing chosen bytes by fixed texts (HTML
// and JSON escapers differ only in their tables). A byte without a
// replacement is copied; an empty replacement drops the byte. Built once
// (constexpr where the table is), then pure and thread-safe.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace llmon::base {

class ByteEscaper {
 public:
  constexpr ByteEscaper(std::initializer_list<std::pair<char, std::string_view>> replacements) {
    for (const auto& [c, text] : replacements) set(c, text);
  }

  // Replaces every byte in [first, last] that has no replacement yet.
  constexpr ByteEscaper& fill(unsigned char first, unsigned char last, std::string_view text) {
    for (unsigned c = first; c <= last; ++c)
      if (!has_[c]) set(static_cast<char>(c), text);
    return *this;
  }

  std::string operator()(std::string_view s) const {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      if (has_[u]) {
        out += text_[u];
      } else {
        out += c;
      }
    }
    return out;
  }

 private:
  constexpr void set(char c, std::string_view text) {
    auto u = static_cast<unsigned char>(c);
    has_[u] = true;
    text_[u] = text;
  }

  std::array<bool, 256> has_{};
  std::array<std::string_view, 256> text_{};
};

}  // namespace llmon::base
