#include "procfs/clocksource.h"

#include "procfs/thermal.h"

namespace llmon::procfs {

void parse_clocksource(std::string_view s, std::string_view current_text, Clocksource& out) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  out.available.clear();
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) out.available.push_back(s.substr(start, i - start));
  }
  out.current = sysfs_trimmed(current_text);
}

}  // namespace llmon::procfs
