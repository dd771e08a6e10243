// Parsers for a NUMA node's memory files in /sys/devices/system/node/node<N>/,
// following node_exporter 1.5's meminfo_numa_linux.go. Pure; no I/O.
//   meminfo:  "Node 0 MemTotal:        32862208 kB" (kB become bytes; HugePages_* have no unit)
//   numastat: "numa_hit 1934721193"
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct NodeMemInfoField {
  std::string_view node;  // the node number as the line prints it (node_exporter's label)
  std::string_view key;   // field name, trailing ':' removed ("Active(anon)")
  double value = 0;       // bytes when the line had "kB", else the number
};

// Fills out (cleared first); views point into text. Blank lines are skipped;
// a line with fewer than 4 fields, a unit other than "kB", more fields, or a
// value that is not a number is an error naming file and line.
Status parse_node_meminfo(std::string_view text, std::string_view file, std::vector<NodeMemInfoField>& out);

struct NumaStatField {
  std::string_view name;  // "numa_hit"
  double value = 0;
};

// Fills out (cleared first). Each non-blank line must be exactly "name value".
Status parse_node_numastat(std::string_view text, std::string_view file, std::vector<NumaStatField>& out);

// node_exporter's name for a node meminfo key: "(x)" rewritten to "_x"
// (regexp \((.*)\) -> _$1): "Active(anon)" -> "Active_anon". No unit suffix.
std::string node_meminfo_key(std::string_view key);

}  // namespace llmon::procfs
