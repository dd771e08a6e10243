// The `trace_capture` receiver: when an alert fires, capture a PyTorch
// profiler trace from the processes its labels name (pid_label, gpu_label,
// job_label of notify_config.h's TraceCaptureNotifierConfig) and record the
// analysed result. The capture itself is the agent's (app/trace_capture.h,
// trace/capture/), reached through a TraceCaptureHook so that notify does
// not depend on the trace module. One capture per distinct selector among
// the group's firing alerts. An alert without any of the labels is skipped
// unless match_all. Outcomes: all captures analysed: delivered; any failure:
// kFailed, never retried (a capture is costly and the moment has passed;
// the next notification after repeat_interval captures again). Resolved
// notifications do nothing unless send_resolved. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "notify/config/notify_config.h"
#include "notify/notification.h"

namespace llmon::notify {

struct TraceCaptureCall {
  std::string receiver;
  std::vector<std::string> alert_names;  // the alerts that share this selector
  LabelPairs labels;                     // the first such alert's labels
  std::vector<LabelPairs> alert_labels;  // every such alert's labels, in alert_names' order
  std::optional<int32_t> pid, gpu;
  std::optional<int64_t> job_id;
  int64_t duration_ms = 500;
  int64_t iterations = 0;
  int64_t timeout_ms = 60'000;
};

struct TraceCaptureResult {
  bool ok = false;
  std::string error;    // what failed, for the delivery status
  std::string summary;  // paths and headline numbers
};

using TraceCaptureHook = std::function<TraceCaptureResult(const TraceCaptureCall&)>;

// The calls one notification makes (pure: labels to selectors). A label
// value that is not an integer is an error naming the label.
Expected<std::vector<TraceCaptureCall>> trace_capture_calls(const TraceCaptureNotifierConfig& cfg,
                                                            const Notification& n);

class TraceCaptureSender final : public Sender {
 public:
  TraceCaptureSender(TraceCaptureNotifierConfig cfg, TraceCaptureHook hook)
      : cfg_(std::move(cfg)), hook_(std::move(hook)) {}
  std::string_view kind() const override { return "trace_capture"; }
  DeliveryResult send(const Notification& n) override;

 private:
  TraceCaptureNotifierConfig cfg_;
  TraceCaptureHook hook_;
};

}  // namespace llmon::notify
