// ASCII helpers for HTTP and URL text (net-internal): case folding of
// header names and schemes, trimming of HTTP optional white space, hex
// digits of percent-encoding. Pure.
#pragma once

#include <string>
#include <string_view>

namespace llmon::net {

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Strips spaces and tabs (RFC 9110 OWS) and a trailing CR.
inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The value of a hex digit (0-9, a-f, A-F), else -1.
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  const char l = static_cast<char>(c | 0x20);  // ASCII letters to lower case
  return l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
}

}  // namespace llmon::net
