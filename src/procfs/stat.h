// Parser for /proc/stat (kernel/system statistics), following
// prometheus/procfs v0.8 as used by node_exporter 1.5: CPU times in seconds
// (ticks / USER_HZ 100), counters as integers. Pure; no I/O.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

inline constexpr double kUserHz = 100.0;

// One "cpu" / "cpuN" line, in seconds. Fields the kernel does not print
// (older kernels stop after steal or guest) stay 0.
struct CpuTimes {
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0, guest = 0,
         guest_nice = 0;
  bool present = false;  // false: no such line (a gap in the CPU numbering)
};

struct SoftirqCounts {
  uint64_t hi = 0, timer = 0, net_tx = 0, net_rx = 0, block = 0, block_iopoll = 0, tasklet = 0, sched = 0, hrtimer = 0,
           rcu = 0;
};

struct ProcStat {
  uint64_t boot_time = 0;
  CpuTimes total;
  // Indexed by CPU number, grown to the highest "cpuN" seen; numbers without a
  // line are zero with present == false (procfs v0.8 keeps them as zero entries).
  std::vector<CpuTimes> cpus;
  uint64_t irq_total = 0;
  uint64_t context_switches = 0;
  uint64_t processes_created = 0;
  uint64_t procs_running = 0;
  uint64_t procs_blocked = 0;
  uint64_t softirq_total = 0;
  SoftirqCounts softirq;
};

// Highest CPU number accepted; larger ones are rejected as malformed.
inline constexpr int64_t kMaxCpuId = 65535;

// Parses text into out, reusing out's storage (allocation-free once out.cpus
// has grown). Errors name `file` and the line; out is then unspecified.
// Lines with fewer than two fields and unknown keys are skipped, as procfs does.
Status parse_stat(std::string_view text, ProcStat& out, std::string_view file = "/proc/stat");
Expected<ProcStat> parse_stat(std::string_view text);

}  // namespace llmon::procfs
