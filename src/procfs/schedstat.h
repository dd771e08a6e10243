// Parser for /proc/schedstat (Documentation/scheduler/sched-stats.rst), as
// node_exporter 1.5's schedstat collector reads it through procfs: every line
// holding "cpu<N>" followed by nine single-space-separated numbers (Go regexp
// `cpu(\d+) (\d+) ... (\d+)`, unanchored) gives one CPU, whose fields 7, 8 and
// 9 are the time spent running and waiting (ns) and the timeslices run.
// Other lines (version, timestamp, domain<N>) are skipped. Pure; no I/O.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct SchedstatCpu {
  std::string_view cpu;  // the number after "cpu", pointing into the text
  uint64_t running_ns = 0;
  uint64_t waiting_ns = 0;
  uint64_t timeslices = 0;
};

// Fills out (cleared first, storage reused). A cpu line whose numbers do not
// fit in uint64 is an error naming `file` and the line (procfs skips it
// silently); out then holds the CPUs before it.
Status parse_schedstat(std::string_view text, std::vector<SchedstatCpu>& out,
                       std::string_view file = "/proc/schedstat");
Expected<std::vector<SchedstatCpu>> parse_schedstat(std::string_view text);

}  // namespace llmon::procfs
