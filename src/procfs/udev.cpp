#include "procfs/udev.h"

#include "base/strings.h"

namespace llmon::procfs {

std::string_view UdevProperties::get(std::string_view key) const {
  for (auto it = props.rbegin(); it != props.rend(); ++it)
    if (it->first == key) return it->second;
  return {};
}

bool UdevProperties::has(std::string_view key) const {
  for (const auto& [k, v] : props)
    if (k == key) return true;
  return false;
}

UdevProperties parse_udev_properties(std::string_view text) {
  UdevProperties out;
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!base::starts_with(line, "E:")) continue;
    line.remove_prefix(2);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    out.props.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return out;
}

}  // namespace llmon::procfs
