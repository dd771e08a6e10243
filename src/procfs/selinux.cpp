#include "procfs/selinux.h"

#include <charconv>

#include "base/strings.h"

namespace llmon::procfs {

int parse_selinux_config_mode(std::string_view text) {
  std::string_view value;
  bool found = false;
  for (std::string_view line : base::split(text, '\n')) {
    line = base::trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    if (line.substr(0, eq) != "SELINUX") continue;
    value = line.substr(eq + 1);
    while (!value.empty() && value.front() == '"') value.remove_prefix(1);
    while (!value.empty() && value.back() == '"') value.remove_suffix(1);
    found = true;
    break;  // the first SELINUX= line, as go-selinux's readConfig
  }
  if (!found) return kSelinuxDisabled;
  if (value == "enforcing") return kSelinuxEnforcing;
  if (value == "permissive") return kSelinuxPermissive;
  return kSelinuxDisabled;
}

int parse_selinux_enforce(std::string_view text) {
  text = base::trim(text);
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return kSelinuxDisabled;
  return v;
}

}  // namespace llmon::procfs
