// The agent's on-demand trace capture (docs/trace.md#capture), on when
// --trace.capture-dir is set: the Kineto daemon socket (--trace.ipc-socket,
// trace/capture/ipc_server.h), the capture service, the capture log
// (<dir>/captures.jsonl, newest 100 also in memory) and the HTTP routes:
//   POST /api/v1/trace/capture   {"pid","gpu","job_id","duration_ms","iterations","timeout_ms"} -> the outcome
//   GET  /api/v1/trace/processes the registered processes
//   GET  /api/v1/trace/captures  the capture log, newest first (alert-triggered ones name their alerts)
//   GET  /api/v1/trace/report?file=NAME  a capture's HTML report (trace/capture/capture_report.h)
// and the hook of the notification pipeline's trace_capture receivers.
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
  void stop();

 private:
  TraceCapture(const base::Clock& clock, base::Logger& log) : clock_(clock), log_(log) {}
  const base::Clock& clock_;
  base::Logger& log_;
  trace::capture::ProcessTable table_;
  std::unique_ptr<trace::capture::IpcServer> server_;
  std::unique_ptr<trace::capture::CaptureService> service_;
  std::string log_path_;
  mutable std::mutex mu_;
  std::deque<nlohmann::json> recent_;
};

}  // namespace llmon::app
