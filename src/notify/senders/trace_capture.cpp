// The trace_capture receiver (trace_capture.h).
#include "notify/senders/trace_capture.h"

#include <charconv>

namespace llmon::notify {

namespace {

template <typename T>
Status int_label(const Alert& a, const std::string& name, std::optional<T>& out) {
  if (name.empty()) return Status::ok();
  std::string_view v = a.label(name);
  if (v.empty()) return Status::ok();
  T x{};
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size())
    return Status::error("label " + name + "=\"" + std::string(v) + "\" is not an integer");
  out = x;
  return Status::ok();
}

}  // namespace

Expected<std::vector<TraceCaptureCall>> trace_capture_calls(const TraceCaptureNotifierConfig& cfg,
                                                            const Notification& n) {
  std::vector<TraceCaptureCall> calls;
  for (const Alert& a : n.alerts) {
    if (a.resolved_at(n.created_ms) && !cfg.send_resolved) continue;
    TraceCaptureCall c;
    if (Status s = int_label(a, cfg.pid_label, c.pid); !s) return s;
    if (Status s = int_label(a, cfg.gpu_label, c.gpu); !s) return s;
    if (Status s = int_label(a, cfg.job_label, c.job_id); !s) return s;
    if (!c.pid && !c.gpu && !c.job_id && !cfg.match_all) continue;
    std::string name(a.label("alertname"));
    bool merged = false;
    for (auto& o : calls)
      if (o.pid == c.pid && o.gpu == c.gpu && o.job_id == c.job_id) {
        o.alert_names.push_back(name);
        o.alert_labels.push_back(a.labels);
        merged = true;
      }
    if (merged) continue;
    c.receiver = n.receiver;
    c.alert_names = {name};
    c.labels = a.labels;
    c.alert_labels = {a.labels};
    c.duration_ms = cfg.duration_ms;
    c.iterations = cfg.iterations;
    c.timeout_ms = cfg.timeout_ms;
    calls.push_back(std::move(c));
  }
  return calls;
}

DeliveryResult TraceCaptureSender::send(const Notification& n) {
  auto calls = trace_capture_calls(cfg_, n);
  if (!calls) return {DeliveryOutcome::kFailed, "trace_capture: " + calls.error()};
  std::string errors;
  for (const auto& c : *calls) {
    TraceCaptureResult r = hook_(c);
    if (!r.ok) errors += (errors.empty() ? "" : "; ") + r.error;
  }
  if (!errors.empty()) return {DeliveryOutcome::kFailed, "trace_capture: " + errors};
  return {};
}

}  // namespace llmon::notify
