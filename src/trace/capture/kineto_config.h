// What llmon asks a traced process for: the on-demand Kineto config text (the
// KEY=VALUE lines of libkineto.conf that dynolog's `dyno gputrace` sends) and
// the names of the files involved. Pure (docs/trace.md#capture).
//  - Kineto inserts "_<pid>" before ".json" (".pt.trace.json") of
//    ACTIVITIES_LOG_FILE when it writes (libkineto Config.cpp), so for the
//    log file <dir>/<stem>.json the trace appears as <dir>/<stem>_<pid>.json;
//    clients that write the name as given are accepted too.
//  - Newer Kineto ignores an on-demand ACTIVITIES_LOG_FILE outside /tmp/ (or
//    $KINETO_ONDEMAND_TRACE_DIR) and writes /tmp/libkineto_activities_<pid>.json.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::trace::capture {

struct CaptureSpec {
  int64_t duration_ms = 500;      // ACTIVITIES_DURATION_MSECS (when iterations is 0)
  int64_t iterations = 0;         // > 0: ACTIVITIES_ITERATIONS from the next iteration
  int64_t start_time_ms = 0;      // PROFILE_START_TIME (Unix ms; 0: as soon as the config arrives)
  int64_t iteration_roundup = 1;  // PROFILE_START_ITERATION_ROUNDUP
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  bool with_flops = false;
  bool with_modules = false;
};

// The config for one process, ending in a newline.
std::string kineto_config(const CaptureSpec& spec, std::string_view log_file);

// "<host>_<pid>_<YYYYMMDDTHHMMSS.mmmZ>": host reduced to [A-Za-z0-9.-]
// (anything else '_'), time UTC.
std::string trace_stem(std::string_view host, int32_t pid, int64_t time_ms);

// The paths a process may write for ACTIVITIES_LOG_FILE=<dir>/<stem>.json,
// Kineto's own first.
std::vector<std::string> expected_trace_paths(const std::string& dir, const std::string& stem, int32_t pid);

// Kineto's fallback when it refuses the log file.
std::string kineto_default_trace_path(int32_t pid);

// True when `tail` (the end of a trace file) ends like a finished trace:
// its last non-space byte closes the top-level object or array.
bool looks_complete(std::string_view tail);

}  // namespace llmon::trace::capture
