// One rank's trace from a file: open (trace_file.h), stream-parse
// (parser.h) into a TraceBuilder (trace_data.h). Errors name the file and the
// byte offset. Not thread-safe per call; calls are independent.
#pragma once

#include <string>

#include "base/status.h"
#include "trace/parser.h"
#include "trace/trace_data.h"

namespace llmon::trace {

Expected<TraceData> load_trace_file(const std::string& path, ParseStats* stats = nullptr);
// The same from a source already open; `path` names it in errors.
Expected<TraceData> load_trace(ByteSource& src, const std::string& path, ParseStats* stats = nullptr);

}  // namespace llmon::trace
