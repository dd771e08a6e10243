// Parser for a udev database entry (/run/udev/data/b<major>:<minor>): the
// "E:KEY=VALUE" device-property lines; S:, W:, I:, G: and other lines are
// ignored. Pure. A later duplicate key wins, as in node_exporter's map.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::procfs {

struct UdevProperties {
  std::vector<std::pair<std::string, std::string>> props;  // in file order

  // Value of key, or "" when absent.
  std::string_view get(std::string_view key) const;
  bool has(std::string_view key) const;
};

UdevProperties parse_udev_properties(std::string_view text);

}  // namespace llmon::procfs
