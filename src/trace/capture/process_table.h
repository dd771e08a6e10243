// The processes that speak Kineto's daemon protocol to this agent, as
// dynolog's LibkinetoConfigManager keeps them: registered by a "ctxt"
// message (pid, GPU, job) or by their first "req" poll (the pid chain: the
// process and its ancestors), forgotten after kForgetAfterMs without a poll.
// A capture installs a config on the matching processes; each gets it once,
// in the reply to its next poll. Matching is dynolog's: a pid selects every
// process whose chain contains it (a launcher pid selects its workers), a
// job its processes, a GPU the processes registered on it; an empty selector
// selects all. Times are passed in (no clock here). Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "trace/capture/kineto_ipc.h"

namespace llmon::trace::capture {

inline constexpr int64_t kForgetAfterMs = 60'000;  // dynolog's kKeepAliveTimeSecs

struct Selector {
  std::optional<int32_t> pid;
  std::optional<int32_t> gpu;
  std::optional<int64_t> job_id;
  bool empty() const { return !pid && !gpu && !job_id; }
  std::string describe() const;  // "pid 12, gpu 0" / "all processes"
};

struct ProcessInfo {
  int32_t pid = 0;             // as the process knows itself (its pid namespace)
  std::vector<int32_t> chain;  // pid and its ancestors, from its last poll
  std::optional<int32_t> gpu;  // from "ctxt"
  int64_t job_id = 0;          // SLURM_JOB_ID, 0 when none
  int32_t peer_pid = 0;        // the sender as the kernel reports it here (0: unknown)
  int64_t first_seen_ms = 0;
  int64_t last_poll_ms = 0;  // 0: registered, never polled
  uint64_t polls = 0;
  bool config_pending = false;   // a config waits for its next poll
  std::string describe() const;  // "pid 12 (gpu 0, job 7, polled 3 s ago)"
};

class ProcessTable {
 public:
  // "ctxt": the number of processes registered for that job and GPU.
  int32_t on_context(const Context& c, int32_t peer_pid, int64_t now_ms);
  // "req": the config to reply with ("" when none, or when `type` does not
  // ask for activities); the process is registered if new.
  std::string on_request(const Request& r, int32_t peer_pid, int64_t now_ms);

  // Live processes (stale ones dropped), by pid.
  std::vector<ProcessInfo> list(int64_t now_ms);
  std::vector<ProcessInfo> match(const Selector& s, int64_t now_ms);

  // Installs `config` for `pid`; false when that process is gone or already
  // has a config waiting (dynolog's "busy").
  bool install(int32_t pid, std::string config);
  // Whether `pid` still has not polled its config.
  bool pending(int32_t pid) const;
  // Drops a waiting config (the capture gave up).
  void cancel(int32_t pid);

 private:
  struct Entry {
    ProcessInfo info;
    std::string config;
  };
  void gc(int64_t now_ms);
  mutable std::mutex mu_;
  std::map<int32_t, Entry> procs_;
};

}  // namespace llmon::trace::capture
