// The `exec` receiver: automated remediation by running a fixed program
// when a notification arrives. Opt-in and deliberately narrow:
//  - the program must be on a global allow-list of absolute, canonical paths
//    (checked when the config is loaded and again before every run, after
//    resolving symlinks);
//  - no shell ever: argv is fixed in the config and no alert text reaches
//    it; alert data arrives only in environment variables and on stdin;
//  - a clean environment: PATH=/usr/bin:/bin, LLMON_ALERT_STATUS,
//    LLMON_ALERT_COUNT, LLMON_RECEIVER, LLMON_GROUP_KEY, and the first
//    alert's LLMON_LABEL_<NAME> / LLMON_ANNOTATION_<NAME> (names upper-cased,
//    anything outside [A-Z0-9_] as '_'; the first of two colliding names wins);
//  - stdin: the notification as Alertmanager's webhook v4 JSON (webhook.h);
//  - a timeout (SIGTERM to the process group, SIGKILL after a grace period),
//    bounded captured output, at most max_concurrent runs at once.
// Outcomes: exit 0 delivered. A non-zero exit, a timeout or a refused path is
// kFailed and NOT retried: a remediation must not repeat blindly (the next
// notification of the group, after repeat_interval, runs it again). At the
// concurrency limit the run does not start and the result is kRetry (the
// delivery queue tries later). Every run (and every refusal) produces one
// audit record: by default a log line through base::Logger.
// ExecSender is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "notify/notification.h"

namespace llmon::notify {

// notify_config.h's ExecConfig is the YAML form; the app builds this from it.
struct ExecSenderConfig {
  std::vector<std::string> command;  // argv; command[0] an absolute path on the allow-list
  int64_t timeout_ms = 30000;
  int max_concurrent = 1;
  bool send_resolved = true;            // as notify_config.h's default
  int64_t kill_grace_ms = 5000;         // SIGTERM to SIGKILL
  size_t max_output_bytes = 64 * 1024;  // captured per stream
};

// The executables exec receivers may run. Built from absolute paths that
// must exist; stored canonical (realpath).
class ExecAllowList {
 public:
  ExecAllowList() = default;  // empty: nothing allowed
  static Expected<ExecAllowList> create(const std::vector<std::string>& paths);
  // The canonical path when `path` is absolute and resolves to an allowed
  // executable; otherwise an error saying why ("...: not in the exec allow-list").
  Expected<std::string> check(std::string_view path) const;
  const std::vector<std::string>& paths() const { return canonical_; }

 private:
  std::vector<std::string> canonical_;
};

Status validate_exec_config(const ExecSenderConfig& cfg, const ExecAllowList& allow);

// "gpu-uuid" -> "GPU_UUID"; appended to a prefix such as "LLMON_LABEL_".
std::string exec_env_name(std::string_view prefix, std::string_view name);
// The child's whole environment, "NAME=value" entries (NUL bytes cut values).
std::vector<std::string> exec_environment(const Notification& n);

struct ExecAuditRecord {
  int64_t time_ms = 0;
  std::string receiver;
  std::vector<std::string> argv;
  std::vector<std::string> alert_names;  // alertname of each alert, in order
  std::string status;                    // "exit 0", "timeout after ...", "refused: ..."
  int exit_code = -1;
  double duration_s = 0;
  std::string stdout_data;  // as captured (bounded)
  std::string stderr_data;
  DeliveryOutcome outcome = DeliveryOutcome::kDelivered;
};
using ExecAuditSink = std::function<void(const ExecAuditRecord&)>;
// One logfmt line per record (info when delivered, warn otherwise), outputs
// cut to 512 bytes and control characters escaped. The logger must outlive
// the sink.
ExecAuditSink log_audit_sink(base::Logger& logger);

class ExecSender final : public Sender {
 public:
  static Expected<std::unique_ptr<ExecSender>> create(ExecSenderConfig cfg, ExecAllowList allow,
                                                      const base::Clock& clock, ExecAuditSink audit);
  std::string_view kind() const override { return "exec"; }
  DeliveryResult send(const Notification& n) override;

 private:
  ExecSender(ExecSenderConfig cfg, ExecAllowList allow, const base::Clock& clock, ExecAuditSink audit)
      : cfg_(std::move(cfg)), allow_(std::move(allow)), clock_(clock), audit_(std::move(audit)) {}

  ExecSenderConfig cfg_;
  ExecAllowList allow_;
  const base::Clock& clock_;
  ExecAuditSink audit_;
  std::mutex mu_;
  int running_ = 0;
};

}  // namespace llmon::notify
