#include "http/query.h"

namespace llmon::http {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool query_unescape(std::string_view s, std::string& out, std::string_view* bad) {
  out.clear();
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= s.size() || hex_digit(s[i + 1]) < 0 || hex_digit(s[i + 2]) < 0) {
        if (bad != nullptr) *bad = s.substr(i, 3);
        return false;
      }
      out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
      i += 2;
    } else {
      out += c;
    }
  }
  return true;
}

std::vector<std::string> query_values(std::string_view query, std::string_view key) {
  std::vector<std::string> out;
  std::string k, v;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty() || part.find(';') != std::string_view::npos) continue;
    size_t eq = part.find('=');
    std::string_view raw_value = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
    if (!query_unescape(part.substr(0, eq), k) || k != key || !query_unescape(raw_value, v)) continue;
    out.push_back(v);
  }
  return out;
}

}  // namespace llmon::http
