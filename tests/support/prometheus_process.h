// A real `prometheus` started by a test as the oracle of a differential test:
// it listens on 127.0.0.1 at a port free when asked, logs to
// <log_dir>/prometheus.log, and start() returns only once GET /-/ready answers
// 200 (or with an error naming why, its log included). The object owns exactly
// the process it started: stop() or the destructor sends it SIGTERM, waits up
// to 30 s, then SIGKILLs it, and reaps it. Not thread-safe; not copyable.
// The config file and storage directory belong to the caller (who removes them
// after stop()).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace llmon::testing {

class PrometheusProcess {
 public:
  PrometheusProcess() = default;
  ~PrometheusProcess() { stop(); }
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;

  // Runs `binary --config.file=<config_file> --storage.tsdb.path=<storage_path>
  // --web.listen-address=127.0.0.1:<port> <extra_flags...>` and waits up to
  // ready_timeout for /-/ready. Errors: already started, no free port, spawn
  // failed, the process exited before it was ready, not ready in time (it is
  // left running then; stop() or the destructor ends it).
  Status start(const std::string& binary, const std::string& config_file, const std::string& storage_path,
               const std::vector<std::string>& extra_flags, const std::string& log_dir,
               std::chrono::milliseconds ready_timeout = std::chrono::seconds(60));

  // SIGTERM, up to 30 s to exit, then SIGKILL; reaps it. No-op when not running.
  void stop();

  int port() const { return port_; }
  pid_t pid() const { return pid_; }  // -1 when not running
  const std::string& log_path() const { return log_path_; }
  std::string log() const;  // what it has written so far

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
};

}  // namespace llmon::testing
