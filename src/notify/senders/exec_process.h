// Runs one program the way the exec receiver needs it, and nothing else:
// posix_spawn of a fixed path and argv (never a shell), a given environment
// only, working directory "/", its own process group, default signal
// dispositions and an empty signal mask, no inherited descriptors beyond
// stdin/stdout/stderr. stdin gets the given bytes (then EOF); stdout and
// stderr are captured up to a bound (the rest is read and dropped so the
// child never blocks on a full pipe). At the deadline the process group gets
// SIGTERM, and SIGKILL after the grace period. Only the spawned pid is
// waited for. The policy (allow-list, environment contents) is the caller's:
// see exec_action.h. Thread-safe: no shared state; each call blocks its
// caller until the child is reaped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmon::notify {

struct ExecRequest {
  std::string path;               // absolute path of the executable
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // "NAME=value" entries, the whole environment
  std::string stdin_data;
  int64_t timeout_ms = 30000;
  int64_t kill_grace_ms = 5000;         // SIGTERM to SIGKILL
  size_t max_output_bytes = 64 * 1024;  // per stream
};

struct ExecResult {
  bool started = false;
  std::string error;  // why it did not start (spawn error), or a pipe/poll problem
  bool timed_out = false;
  bool killed = false;  // needed SIGKILL after the grace period
  int exit_code = -1;   // when it exited normally
  int term_signal = 0;  // when a signal ended it
  std::string stdout_data;
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  double duration_s = 0;

  bool success() const { return started && !timed_out && exit_code == 0 && error.empty(); }
  // "exit 0", "exit 3", "signal 9 (Killed)", "timeout after 30000 ms (SIGTERM)",
  // "not started: ..."
  std::string describe(int64_t timeout_ms) const;
};

ExecResult run_process(const ExecRequest& req);

}  // namespace llmon::notify
