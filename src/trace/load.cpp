// load.h.
#include "trace/load.h"

#include "trace/trace_file.h"

namespace llmon::trace {

Expected<TraceData> load_trace_file(const std::string& path, ParseStats* stats) {
  auto src = open_trace_file(path);
  if (!src) return src.status();
  return load_trace(**src, path, stats);
}

Expected<TraceData> load_trace(ByteSource& src, const std::string& path, ParseStats* stats) {
  TraceBuilder builder;
  TraceHeader header;
  Status st = parse_trace(src, builder, header, stats);
  if (!st) return st.with_context(path);
  return builder.finish(std::move(header));
}

}  // namespace llmon::trace
