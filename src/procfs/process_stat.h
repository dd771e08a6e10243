// Parsers for a process's own accounting files, as Prometheus client
// libraries read them for the process_* metrics: /proc/<pid>/stat,
// /proc/<pid>/limits, and the btime line of /proc/stat. Pure.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct ProcessStat {
  uint64_t utime_ticks = 0;      // field 14, in USER_HZ
  uint64_t stime_ticks = 0;      // field 15
  uint64_t starttime_ticks = 0;  // field 22, since boot
  uint64_t vsize_bytes = 0;      // field 23
  int64_t rss_pages = 0;         // field 24
};

// "/proc/<pid>/stat": "pid (comm) state ...". comm may hold spaces and ')'; the
// fields are counted after the last ')'.
Expected<ProcessStat> parse_process_stat(std::string_view text);

struct ProcessLimits {
  // Soft limits; "unlimited" is 2^64-1 (as prometheus/procfs reports it).
  double max_open_files = 0;
  double max_address_space_bytes = 0;
};

// "/proc/<pid>/limits": needs the "Max open files" and "Max address space" rows.
Expected<ProcessLimits> parse_process_limits(std::string_view text);

// Boot time in seconds since the epoch from the "btime" line of /proc/stat.
Expected<uint64_t> parse_boot_time(std::string_view proc_stat_text);

}  // namespace llmon::procfs
