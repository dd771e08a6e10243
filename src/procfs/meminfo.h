// Parser for /proc/meminfo ("MemTotal:       65842216 kB"), following
// node_exporter 1.5's meminfo_linux.go: values with a unit are kB and become
// bytes, values without one (HugePages_*) stay counts. Pure; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct MemInfoField {
  std::string_view raw_key;  // the name as printed, without the trailing ':' ("Active(anon)")
  double value = 0;          // bytes when has_unit (kB * 1024), else the number as printed
  bool has_unit = false;
};

// Fills out (cleared first, storage reused); the views point into text.
// Empty lines are skipped; a line without a value, with more than a unit after
// it, or with a non-numeric value is an error naming `file` and the line.
Status parse_meminfo(std::string_view text, std::vector<MemInfoField>& out, std::string_view file = "/proc/meminfo");
Expected<std::vector<MemInfoField>> parse_meminfo(std::string_view text);

// node_exporter's key for a field, from its raw_key: "(x)" rewritten to "_x"
// (regexp \((.*)\) -> _$1, greedy), then "_bytes" appended when the value had
// a unit: "Active(anon)" -> "Active_anon_bytes". The result may still be an
// invalid metric name (odd kernels); callers check.
std::string meminfo_key(std::string_view raw_key, bool has_unit);

}  // namespace llmon::procfs
