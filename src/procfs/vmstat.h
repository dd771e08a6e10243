// Parser for /proc/vmstat ("pgfault 9837162535"): one name and value per
// line, as node_exporter 1.5's vmstat_linux.go reads it. Pure; no I/O.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct VmstatField {
  std::string_view name;  // points into the parsed text
  double value = 0;
};

// Fills out (cleared first, storage reused). Empty lines are skipped; a line
// with a name but no value, or a non-numeric value, is an error naming `file`
// and the line (node_exporter fails the collector on any bad value); out then
// holds the fields of the lines before it.
Status parse_vmstat(std::string_view text, std::vector<VmstatField>& out, std::string_view file = "/proc/vmstat");
Expected<std::vector<VmstatField>> parse_vmstat(std::string_view text);

}  // namespace llmon::procfs
