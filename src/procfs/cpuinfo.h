// Parser for /proc/cpuinfo in the x86 layout, as prometheus/procfs'
// parseCPUInfoX86 reads it for node_exporter 1.5's node_cpu_info (amd64
// builds). Pure; no I/O. One block per CPU, starting at its "processor" line;
// each "key<TAB>: value" line is split at the first ": ", the key trimmed,
// the value kept as printed. Lines without ':' or without ": " are ignored.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct CpuInfo {
  uint32_t processor = 0;
  std::string vendor_id, cpu_family, model, model_name, stepping, microcode, cache_size, physical_id, core_id;
  std::vector<std::string> flags, bugs;  // the words of "flags" and "bugs"
};

// Fills out (cleared first). The first non-blank line must be a "processor"
// line; a processor number, or a numeric field procfs parses (cpu MHz,
// siblings, cpu cores, cpuid level, bogomips, clflush size,
// cache_alignment), that is malformed is an error naming file and line.
Status parse_cpuinfo(std::string_view text, std::string_view file, std::vector<CpuInfo>& out);

}  // namespace llmon::procfs
