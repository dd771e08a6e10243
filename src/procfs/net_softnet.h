// Parser for /proc/net/softnet_stat: one line per online CPU of hex columns
// (processed, dropped, time_squeeze, five zeros, cpu_collision, received_rps,
// flow_limit_count, backlog length, cpu index, ...; older kernels print 9 or
// 11 columns). node_exporter 1.5 (procfs 0.8) exports the first three only.
// Pure.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct SoftnetLine {
  uint32_t processed = 0, dropped = 0, time_squeezed = 0;
};

// Fills out (cleared first), one entry per line in file order. A line with
// fewer than 9 columns or one of the first three columns not a 32-bit hex
// number is an error naming `file` and the line (node_exporter fails the
// collector); the other columns are not read, as in procfs 0.8.
Status parse_softnet(std::string_view text, std::string_view file, std::vector<SoftnetLine>& out);
Expected<std::vector<SoftnetLine>> parse_softnet(std::string_view text,
                                                 std::string_view file = "/proc/net/softnet_stat");

}  // namespace llmon::procfs
