#include "logwatch/hyperscan_expression.h"

#include <string_view>

namespace llmon::logwatch {
namespace {

bool ascii_only(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::string escape_literal(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

// Copies s with every "(?P<name>" outside escapes, \Q...\E and character
// classes turned into "(?:".
std::string strip_named_groups(std::string_view s) {
  std::string out;
  bool in_class = false;
  size_t class_start = 0;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      if (s[i + 1] == 'Q') {
        size_t end = s.find("\\E", i + 2);
        end = end == std::string_view::npos ? s.size() : end + 2;
        out.append(s.substr(i, end - i));
        i = end;
      } else {
        out.append(s.substr(i, 2));
        i += 2;
      }
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < s.size() && s[i + 1] == ':') {  // [:alpha:]
        size_t end = s.find(":]", i + 2);
        end = end == std::string_view::npos ? s.size() : end + 2;
        out.append(s.substr(i, end - i));
        i = end;
        continue;
      }
      if (c == ']' && i > class_start) in_class = false;
      out += c;
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      ++i;
      if (i < s.size() && s[i] == '^') out += s[i++];
      class_start = i;  // a ']' here is a member, not the end
      continue;
    }
    if (s.substr(i, 4) == "(?P<") {
      size_t close = s.find('>', i + 4);
      if (close != std::string_view::npos) {
        out += "(?:";
        i = close + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace

std::optional<std::string> hyperscan_expression(const Pattern& p) {
  // (?i) inline as well as the flag.
  if (!ascii_only(p.text) && (p.case_insensitive || p.text.find("(?") != std::string::npos)) return std::nullopt;
  if (p.literal) return escape_literal(p.text);
  return strip_named_groups(p.text);
}

}  // namespace llmon::logwatch
