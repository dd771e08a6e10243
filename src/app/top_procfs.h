// The /proc side of `llmon top`'s process detail and tree view: reads
// /proc/PID/{stat,status,cmdline,cgroup,environ} under the --path.procfs
// root into top::ProcessDetail (parsers in top/proc_detail.h), and the
// parent pids of the GPU processes. An unreadable environ (another user's
// process) gives env_note "not readable: <why>", never an error.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "top/proc_detail.h"

namespace llmon::app {

top::ProcessDetail read_process_detail(const std::string& procfs, const std::string& pid);
// pid -> ppid for each pid whose stat could be read.
std::map<std::string, std::string> read_parent_pids(const std::string& procfs, const std::vector<std::string>& pids);

}  // namespace llmon::app
