#include "procfs/selinux.h"

#include <charconv>

#include "base/strings.h"

namespace llmon::procfs {

int selinux_config_mode(std::string_view config) {
  base::LineIterator lines(config);
  std::string_view line;
  while (lines.next(line)) {
    line = base::trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || line.substr(0, eq) != "SELINUX") continue;
    std::string_view v = line.substr(eq + 1);
    while (!v.empty() && v.front() == '"') v.remove_prefix(1);
    while (!v.empty() && v.back() == '"') v.remove_suffix(1);
    if (v == "enforcing") return 1;
    if (v == "permissive") return 0;
    return -1;
  }
  return -1;
}

int selinux_enforce_mode(std::string_view enforce) {
  enforce = base::trim(enforce);
  int v = 0;
  auto [p, ec] = std::from_chars(enforce.data(), enforce.data() + enforce.size(), v);
  if (enforce.empty() || ec != std::errc() || p != enforce.data() + enforce.size()) return -1;
  return v;
}

bool selinux_context_is_kernel(std::string_view current) {
  while (!current.empty() && (current.back() == '\0' || current.back() == '\n')) current.remove_suffix(1);
  return current == "kernel";
}

}  // namespace llmon::procfs
