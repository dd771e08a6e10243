// UTF-8 validation for strings that become label values (sysfs labels,
// os-release fields): the exposition formats require valid UTF-8. Pure
// functions, no allocation unless a replacement is needed.
#pragma once

#include <string>
#include <string_view>

namespace llmon::base {

bool is_valid_utf8(std::string_view s);
// Length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), or 0 when
// the byte there does not start a valid sequence (overlong, surrogate, > U+10FFFF,
// truncated). Requires i < s.size().
size_t utf8_sequence_length(std::string_view s, size_t i);
// Like Go's strings.ToValidUTF8(s, "\uFFFD"): every run of invalid bytes
// becomes one U+FFFD.
std::string to_valid_utf8(std::string_view s);

}  // namespace llmon::base
