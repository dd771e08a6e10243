// Fuzz target: the streaming trace parser (trace/parser.h) and what follows
// it (TraceBuilder, analyze, stragglers and diff of the rank against
// itself). Any bytes must parse or give an error, never crash; reading them
// 3 bytes at a time through a tiny buffer, or parsing them in place
// (ByteSource::view(), as a mapped file is), must give the same status and
// the same events as reading them whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
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

// The input in place, with the padding the parser writes its sentinel to.
class ViewSource : public llmon::trace::ByteSource, public llmon::trace::InputView {
 public:
  explicit ViewSource(std::string_view text) : bytes_(std::string(text) + std::string(kInputPadding, '\0')) {
    data = bytes_.data();
    size = text.size();
  }
  llmon::Expected<size_t> read(char*, size_t) override { std::abort(); }
  InputView* view() override { return this; }

 private:
  std::string bytes_;
};

Run run(std::string_view text, size_t max_read, size_t chunk, bool in_place = false) {
  llmon::trace::StringSource plain(text, max_read);
  ViewSource view(text);
  llmon::trace::ByteSource& src = in_place ? static_cast<llmon::trace::ByteSource&>(view) : plain;
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
  Run in_place = run(text, SIZE_MAX, 1u << 16, true);
  for (const Run* r : {&pieces, &in_place})
    if (whole.ok != r->ok || whole.events != r->events || whole.kernels != r->kernels || whole.message != r->message)
      std::abort();
  return 0;
}
