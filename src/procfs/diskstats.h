// Parser for /proc/diskstats: "major minor name" then 11 (kernel < 4.18),
// 15 (+discards, 4.18) or 17 (+flushes, 5.5) counters per line
// (Documentation/admin-guide/iostats.rst). Pure; names are views into the text.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

// Counter columns after the device name, in kernel order.
enum DiskStatField : size_t {
  kReadIOs, kReadMerges, kReadSectors, kReadTicksMs,
  kWriteIOs, kWriteMerges, kWriteSectors, kWriteTicksMs,
  kIOsInProgress, kIOTicksMs, kWeightedIOTicksMs,
  kDiscardIOs, kDiscardMerges, kDiscardSectors, kDiscardTicksMs,
  kFlushIOs, kFlushTicksMs,
  kDiskStatFieldCount
};

struct DiskStatsLine {
  uint32_t major = 0, minor = 0;
  std::string_view name;  // points into the parsed text
  std::array<uint64_t, kDiskStatFieldCount> v{};
  size_t count = 0;  // counters present on the line (11..17); later ones are 0
};

// Fills out (cleared first; capacity reused). Like node_exporter 1.5 (procfs
// blockdevice, Sscanf of 20 fields): a line with fewer than 11 counters is
// skipped, columns past the 17th are ignored, and a field that is not a
// number is an error naming the line.
Status parse_diskstats(std::string_view text, std::vector<DiskStatsLine>& out);
Expected<std::vector<DiskStatsLine>> parse_diskstats(std::string_view text);

}  // namespace llmon::procfs
