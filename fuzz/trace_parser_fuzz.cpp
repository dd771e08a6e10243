// Fuzz target: the streaming trace parser (trace/parser.h) and what follows
// it (TraceBuilder, analyze, stragglers and diff of the rank against itself).
// Any bytes must parse or give an error, never
// crash; reading them 3 bytes at a time through a tiny buffer must give the
// same status and the same events as reading them whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/analysis.h"
#include "trace/parser.h"
#include "trace/trace_data.h"

namespace {

struct Run {
  bool ok;
  std::string message;
  uint64_t events;
  size_t kernels;
};

Run run(std::string_view text, size_t max_read, size_t chunk) {
  llmon::trace::StringSource src(text, max_read);
  llmon::trace::TraceBuilder builder;
  llmon::trace::TraceHeader header;
  llmon::trace::ParseOptions opts;
  opts.chunk_bytes = chunk;
  opts.max_value_bytes = 1u << 20;
  llmon::Status st = llmon::trace::parse_trace(src, builder, header, nullptr, opts);
  llmon::trace::TraceData d = builder.finish(header);
  llmon::trace::RankReport r = llmon::trace::analyze(d);
  if (r.temporal.idle < 0 && r.temporal.kernel_time >= 0) std::abort();
  // The cross-rank and two-trace analyses on the rank against itself: no
  // collective is late, nothing changed.
  auto s = llmon::trace::find_stragglers({llmon::trace::collectives_of(r), llmon::trace::collectives_of(r)}, 3);
  for (const auto& c : s.worst)
    if (c.late_ns != 0) std::abort();
  auto diff = llmon::trace::diff_traces({llmon::trace::diff_side_of(r)}, {llmon::trace::diff_side_of(r)}, 3);
  for (const auto& row : diff.kernels)
    if (row.delta_ns() != 0) std::abort();
  return Run{st.is_ok(), st.message(), d.events, d.kernels.size()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Run whole = run(text, SIZE_MAX, 1u << 16);
  Run pieces = run(text, 3, 16);
  if (whole.ok != pieces.ok || whole.events != pieces.events || whole.kernels != pieces.kernels ||
      whole.message != pieces.message)
    std::abort();
  return 0;
}
