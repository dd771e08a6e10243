// One on-demand capture, start to end (docs/trace.md#capture): select the
// registered processes (ProcessTable), give each a Kineto config whose
// ACTIVITIES_LOG_FILE is <dir>/<host>_<pid>_<time>.json, wait until each has
// polled it and written the trace (the file exists, its size has not moved
// for settle_ms and it ends like a finished JSON document), gzip it to
// <dir>/<host>_<pid>_<time>.json.gz (the plain file is removed) and analyse
// it (analysis.h). Every failure says what was awaited: which processes are
// registered when none matched, which pid never polled, which file never
// appeared or never finished, and where Kineto may have written instead.
// Files: reads only the names it asked for, as regular files (no symlinks);
// writes only <dir>/*.json.gz (exclusive temp file, then rename).
// capture() blocks (seconds: Kineto polls every 5 s) and may run on several
// threads at once; a process with a config waiting is "busy" for others.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "trace/capture/kineto_config.h"
#include "trace/capture/process_table.h"

namespace llmon::trace::capture {

struct CaptureServiceOptions {
  std::string dir;                      // --trace.capture-dir
  std::string host;                     // in file names
  std::string socket_name = "dynolog";  // in messages
  int64_t pickup_timeout_ms = 15'000;   // Kineto polls every 5 s
  int64_t settle_ms = 500;
  int64_t poll_interval_ms = 50;
};

struct CaptureRequest {
  Selector selector;
  CaptureSpec spec;
  int64_t timeout_ms = 60'000;  // after the pickup, on top of the duration, for the file to be finished
};

struct CapturedTrace {
  int32_t pid = 0;
  std::string awaited;              // the file Kineto was asked to write (with its _<pid>)
  std::string path;                 // the .json.gz, once done
  std::string error;                // empty: done
  std::string headline;             // "idle 12.3% compute 80.1% ..., top kernel X 31.0%"
  nlohmann::json report = nullptr;  // report_json.h's rank object
};

struct CaptureOutcome {
  std::string selector;  // Selector::describe()
  std::vector<ProcessInfo> registered;
  std::vector<int32_t> matched;
  std::vector<CapturedTrace> traces;
  std::string error;  // empty when every matched process gave an analysed trace
  bool ok() const { return error.empty(); }
  nlohmann::json to_json() const;
};

class CaptureService {
 public:
  CaptureService(CaptureServiceOptions opts, ProcessTable& table, const base::Clock& clock, base::Logger& log)
      : opts_(std::move(opts)), table_(table), clock_(clock), log_(log) {}
  CaptureOutcome capture(const CaptureRequest& req);
  const CaptureServiceOptions& options() const { return opts_; }

 private:
  CaptureServiceOptions opts_;
  ProcessTable& table_;
  const base::Clock& clock_;
  base::Logger& log_;
};

// "no processes registered" / the processes, one per line, for messages.
std::string describe_processes(const std::vector<ProcessInfo>& ps);

// Gzips the regular file `src` (not a symlink) into `dst` through an
// exclusive temp file beside it, then removes `src`.
Status gzip_trace(const std::string& src, const std::string& dst);

// The one-line summary of an analysed rank.
std::string headline(const nlohmann::json& rank);

}  // namespace llmon::trace::capture
