// ProcessDetail: what `llmon top`'s detail pane shows of one process (full
// command line, parent, threads, elapsed, cgroup, the environment variables
// that matter to a GPU job, its owner) and the pure parsers that fill it
// from /proc/PID files. No I/O here: app/top_procfs.h reads the files.
// may_signal() is kill(2)'s permission rule, stated so the pane can say why
// not before trying.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::top {

struct ProcessDetail {
  std::string pid;
  bool found = false;  // /proc/PID/stat was read
  std::string cmdline, comm, ppid, state;
  std::optional<double> threads, elapsed_s;
  std::optional<uint64_t> start_ticks;  // stat field 22: tells a reused pid apart
  std::string cgroup;                   // the unified (0::) path, else the first line's
  std::optional<uint32_t> ruid, suid;   // /proc/PID/status Uid: real and saved
  // The variables that matter (env_matters), in environ order; env_note
  // says why there are none ("not readable: Permission denied").
  std::vector<std::pair<std::string, std::string>> env;
  std::string env_note;
};

// CUDA_*, NCCL_*, NVIDIA_*, TORCH*, OMP_NUM_THREADS, LOCAL_RANK, RANK,
// WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, NODE_RANK, MASTER_ADDR,
// MASTER_PORT, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, SLURM_JOB_ID,
// SLURM_PROCID, PYTORCH_CUDA_ALLOC_CONF.
bool env_matters(std::string_view name);
// NUL-separated NAME=value entries -> those that matter.
std::vector<std::pair<std::string, std::string>> pick_env(std::string_view environ);
// NUL-separated argv -> one line, arguments separated by spaces.
std::string join_cmdline(std::string_view raw);
// /proc/PID/stat: comm, state, ppid, threads (field 20), starttime (22).
bool parse_stat(std::string_view stat, ProcessDetail& d);
// /proc/PID/status "Uid:" -> ruid, suid.
void parse_status_uids(std::string_view status, ProcessDetail& d);
// /proc/PID/cgroup -> the path shown.
std::string pick_cgroup(std::string_view cgroup);
// Seconds since the process started: uptime_s - start_ticks / ticks_per_s.
std::optional<double> elapsed_seconds(uint64_t start_ticks, double uptime_s, long ticks_per_s);
// "3d04h", "2h05m", "12m03s", "45s".
std::string elapsed_text(double s);

// kill(2)'s rule: root (euid 0) may signal anyone; otherwise the sender's
// real or effective uid must equal the target's real or saved uid. Returns
// "" when allowed, otherwise why not.
std::string may_signal(uint32_t my_ruid, uint32_t my_euid, const ProcessDetail& target);

// The signals the `k` menu offers, in order.
struct SignalChoice {
  int number;
  const char* name;  // "TERM"
  const char* what;  // "ask to terminate"
};
const std::vector<SignalChoice>& signal_choices();

}  // namespace llmon::top
