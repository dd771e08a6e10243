// Child processes for tests that run a real tool (prometheus, promtool): start
// one with its output in a log file, wait for it with a deadline, stop exactly
// it (SIGTERM, then SIGKILL), read the log back. Tests only; nothing throws;
// spawn optionally sets environment variables for the child (the rest of the
// environment is inherited) and gives it /dev/null as stdin (SpawnOptions;
// the defaults keep the plain inherited environment and stdin);
// each pid is owned by the caller that spawned it, who must reap it (wait_exit
// or stop_process) -- these never touch any other process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace llmon::testing {

struct SpawnOptions {
  // "NAME=value" entries added to the inherited environment; each replaces an
  // inherited NAME.
  std::vector<std::string> env;
  // stdin from /dev/null instead of ours.
  bool stdin_null = false;
};

// Runs argv (argv[0] a path, not searched on $PATH) with stdout and stderr
// into log_path (created or truncated); returns the pid, or -1 when it could
// not be started.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log_path, const SpawnOptions& options = {});

// Waits up to timeout for pid to exit and reaps it: its exit status, 128 +
// the signal when a signal ended it, or -1 on timeout (it is still running
// then) or when pid is not our child.
int wait_exit(pid_t pid, std::chrono::milliseconds timeout);

// SIGTERM, up to `grace` for it to exit, then SIGKILL; reaps it either way.
// No-op for pid <= 0.
void stop_process(pid_t pid, std::chrono::milliseconds grace);

// The whole file, or "" when it cannot be read.
std::string read_text(const std::string& path);

}  // namespace llmon::testing
