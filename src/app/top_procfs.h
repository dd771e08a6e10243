// The /proc side of `llmon top`'s process detail and tree view: reads
// /proc/PID/{stat,status,cmdline,cgroup,environ} under the --path.procfs
// root into top::ProcessDetail (parsers in top/proc_detail.h), and the
// parent pids of the GPU processes. An unreadable environ (another user's
// process) gives env_note "not readable: <why>", never an error.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "summary/gpu_summary.h"
#include "top/proc_detail.h"

namespace llmon::app {

top::ProcessDetail read_process_detail(const std::string& procfs, const std::string& pid);
// pid -> ppid for each pid whose stat could be read.
std::map<std::string, std::string> read_parent_pids(const std::string& procfs, const std::vector<std::string>& pids);
// The tree view's launchers: each parent in `ppid` that is not one of
// `gpu_pids` and not pid 0, 1 or 2 (init, kthreadd), read from procfs: pid,
// user (from `passwd`, a /etc/passwd path; the numeric uid without it),
// command (comm), host RSS; no GPU fields. Their own parents are added to
// `ppid`, so a launcher of launchers nests. One gone since is left out.
std::vector<summary::GpuProcess> read_launchers(const std::string& procfs, const std::string& passwd,
                                                const std::vector<std::string>& gpu_pids,
                                                std::map<std::string, std::string>& ppid);

}  // namespace llmon::app
