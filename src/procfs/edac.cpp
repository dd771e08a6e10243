#include "procfs/edac.h"

#include "procfs/powercap.h"

namespace llmon::procfs {

std::optional<std::string> edac_entry_number(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  size_t end = prefix.size();
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == prefix.size()) return std::nullopt;
  return std::string(name.substr(prefix.size(), end - prefix.size()));
}

Expected<uint64_t> parse_edac_count(std::string_view text, std::string_view what) {
  return parse_powercap_uint(text, what);  // the same rule: node_exporter's readUintFromFile
}

}  // namespace llmon::procfs
