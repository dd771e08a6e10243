#include "support/prometheus_process.h"

#include <sys/wait.h>

#include <thread>

#include "support/http_client.h"
#include "support/subprocess.h"

namespace llmon::testing {

Status PrometheusProcess::start(const std::string& binary, const std::string& config_file,
                                const std::string& storage_path, const std::vector<std::string>& extra_flags,
                                const std::string& log_dir, std::chrono::milliseconds ready_timeout) {
  if (pid_ > 0) return Status::error("prometheus already started (pid " + std::to_string(pid_) + ")");
  port_ = free_tcp_port();
  if (port_ <= 0) return Status::error("no free TCP port on 127.0.0.1");
  log_path_ = log_dir + "/prometheus.log";
  std::vector<std::string> argv = {binary, "--config.file=" + config_file, "--storage.tsdb.path=" + storage_path,
                                   "--web.listen-address=127.0.0.1:" + std::to_string(port_)};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  pid_ = spawn(argv, log_path_);
  if (pid_ <= 0) return Status::error("cannot start " + binary);
  // The port was free when asked; Prometheus failing to bind it shows in its log.
  const auto deadline = std::chrono::steady_clock::now() + ready_timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (http_request(port_, "GET", "/-/ready", {}, 1000).status == 200) return Status::ok();
    if (::waitpid(pid_, nullptr, WNOHANG) != 0) {  // exited (now reaped), or not our child
      pid_ = -1;
      return Status::error("prometheus exited:\n" + log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::error("prometheus not ready on 127.0.0.1:" + std::to_string(port_) + " after " +
                       std::to_string(ready_timeout.count()) + " ms:\n" + log());
}

void PrometheusProcess::stop() {
  stop_process(pid_, std::chrono::seconds(30));
  pid_ = -1;
}

std::string PrometheusProcess::log() const {
  return log_path_.empty() ? "" : read_text(log_path_);
}

}  // namespace llmon::testing
