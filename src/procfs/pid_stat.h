// Parsers for the per-process files that say who a process is and what it
// costs: /proc/<pid>/stat (command, state, CPU ticks, start time),
// /proc/<pid>/status (real uid, resident memory) and /proc/<pid>/cmdline.
// Pure; no I/O. procfs/process_stat.h parses the same stat file for llmon's own
// process_* metrics; this one also keeps the command name and state.
// Format: man 5 proc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct PidStat {
  std::string comm;              // field 2 without the parentheses; may hold spaces and ')'
  char state = '?';              // field 3: R, S, D, Z, T, t, X, I, ...
  uint64_t utime_ticks = 0;      // field 14, USER_HZ
  uint64_t stime_ticks = 0;      // field 15, USER_HZ
  uint64_t starttime_ticks = 0;  // field 22, USER_HZ since boot: with the pid, names one process
};

// "pid (comm) state ppid ...": comm runs from the first '(' to the LAST ')'
// (comm itself may contain ')'); fields are counted after it. Needs fields
// up to 22; the later ones (52 on current kernels) are not read.
Expected<PidStat> parse_pid_stat(std::string_view text);

// The split both stat parsers share: `comm` (between the first '(' and the
// last ')') and the fields after it, fields[0] being field 3 (state), so
// field N is fields[N - 3]. Checks the pid and the parentheses only.
Status split_stat(std::string_view text, std::string_view& comm, std::vector<std::string_view>& fields);

// What the processes collector counts of a process or thread, read as
// prometheus/procfs' ProcStat (node_exporter 1.5 processes_linux.go): it scans
// fields 3 to 42 (state .. delayacct_blkio_ticks), so fewer is an error, and
// field 20 (num_threads) must be an integer. Views point into the text.
struct TaskStat {
  std::string_view state;  // field 3, as a word ("R", "S", "D", ...)
  int64_t num_threads = 0;
};
Expected<TaskStat> parse_task_stat(std::string_view text, std::vector<std::string_view>& scratch);

struct PidStatus {
  uint32_t uid = 0;        // first value of "Uid:" (the real uid)
  uint64_t rss_bytes = 0;  // "VmRSS: N kB" * 1024; 0 when absent (kernel threads, zombies)
};

// "Name:\tpython3\n...Uid:\t1000\t1000\t1000\t1000\n...VmRSS:\t  123 kB\n".
// A missing or malformed Uid line is an error; errors name "status:<line>".
Expected<PidStatus> parse_pid_status(std::string_view text);

// The basename of argv[0] from /proc/<pid>/cmdline (NUL-separated arguments):
// "/usr/bin/python3\0train.py\0" -> "python3". "" for an empty cmdline
// (kernel threads, zombies).
std::string cmdline_command(std::string_view cmdline);

}  // namespace llmon::procfs
