// The agent's on-demand trace capture (docs/trace.md#capture), on when
// --trace.capture-dir is set: the Kineto daemon socket (--trace.ipc-socket,
// trace/capture/ipc_server.h), the capture service, the capture log
// (<dir>/captures.jsonl, newest 100 also in memory) and the HTTP routes:
//   POST /api/v1/trace/capture   {"pid","gpu","job_id","duration_ms","iterations","timeout_ms"} -> the outcome
//   GET  /api/v1/trace/processes the registered processes
//   GET  /api/v1/trace/captures  the capture log, newest first (alert-triggered ones name their alerts)
//   GET  /api/v1/trace/report?file=NAME  a capture's HTML report (trace/capture/capture_report.h)
// and the hook of the notification pipeline's trace_capture receivers. An
// alert-triggered capture is attached to its alerts: annotate() adds
// llmon_trace_capture (file and headline, or the error) and
// llmon_trace_report (the report's URL path) to the alerts /api/v1/alerts
// and /api/v1/rules show (alerting.h's snapshot decorator).
// Thread-safe; must outlive the server's routes and the pipeline.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "base/clock.h"
#include "base/log.h"
#include "config/settings.h"
#include "http/server.h"
#include "notify/senders/trace_capture.h"
#include "rules/group.h"
#include "trace/capture/capture_service.h"
#include "trace/capture/ipc_server.h"

namespace llmon::app {

class TraceCapture {
 public:
  // nullptr when --trace.capture-dir is empty; an error when the directory
  // cannot be created or the socket name is taken.
  static Expected<std::unique_ptr<TraceCapture>> create(const config::Settings& s, const base::Clock& clock,
                                                        base::Logger& log);
  ~TraceCapture();
  Status register_routes(http::Server& server);
  notify::TraceCaptureHook hook();
  // One capture, recorded in the log with `trigger` ("api" or "alert").
  trace::capture::CaptureOutcome run(const trace::capture::CaptureRequest& req, const std::string& trigger,
                                     const notify::TraceCaptureCall* alert = nullptr);
  nlohmann::json captures() const;
  // Adds the latest alert-triggered capture's annotations to every alert
  // whose labels are all among the labels of an alert that triggered it
  // (sent alerts carry the external labels too).
  void annotate(std::vector<rules::GroupSnapshot>& groups) const;
  void stop();

 private:
  TraceCapture(const base::Clock& clock, base::Logger& log) : clock_(clock), log_(log) {}
  const base::Clock& clock_;
  base::Logger& log_;
  trace::capture::ProcessTable table_;
  std::unique_ptr<trace::capture::IpcServer> server_;
  std::unique_ptr<trace::capture::CaptureService> service_;
  std::string log_path_;
  void attach(const notify::TraceCaptureCall& alert, const trace::capture::CaptureOutcome& o);

  mutable std::mutex mu_;
  std::deque<nlohmann::json> recent_;
  struct Attachment {
    notify::LabelPairs labels;       // of the alert, as sent (sorted)
    notify::LabelPairs annotations;  // llmon_trace_capture, llmon_trace_report
  };
  std::deque<Attachment> attachments_;  // newest first, at most kRecent
};

}  // namespace llmon::app
