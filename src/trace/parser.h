// The streaming Chrome-trace JSON parser (docs/trace.md#parser): reads a
// torch.profiler/Kineto trace from a ByteSource in chunks and hands each
// event of `traceEvents` to an EventSink as it is parsed; the top-level keys
// go into a TraceHeader. It never builds a DOM: memory is one buffer that
// grows only to the largest single event or top-level value, or none when
// the source offers its input whole (ByteSource::view(): a mapped file),
// which is then parsed in place. Hand-written
// (not simdjson; docs/trace.md says why). Not thread-safe; one parse per object.
//
// Errors (truncation, bad syntax) come back as a Status naming the byte offset
// in the decompressed JSON. Strings are not validated as UTF-8 (consumers
// that print them must replace bad bytes); integers beyond int64 are dropped
// (RawEvent::overflowed); unknown keys and args are skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "trace/event.h"

namespace llmon::trace {

// The whole input already in memory, followed by kInputPadding writable
// bytes (the parser writes its sentinel there): parsed in place, without
// copying it into the parser's buffer. release(offset) tells the source that
// the bytes before offset will not be looked at again (a mapped file drops
// those pages from the process).
struct InputView {
  static constexpr size_t kInputPadding = 64;
  char* data = nullptr;
  size_t size = 0;
  virtual ~InputView() = default;
  virtual void release(size_t /*offset*/) {}
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf; 0 at the end of the input.
  virtual Expected<size_t> read(char* buf, size_t n) = 0;
  // Sources that hold the whole input in memory offer it here; read() is
  // then not called.
  virtual InputView* view() { return nullptr; }
};

// A ByteSource over bytes in memory (tests, the fuzz target).
class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string_view text, size_t max_read = SIZE_MAX) : text_(text), max_read_(max_read) {}
  Expected<size_t> read(char* buf, size_t n) override;

 private:
  std::string_view text_;
  size_t max_read_;
};

struct ParseOptions {
  size_t chunk_bytes = 4u << 20;        // bytes asked of the source per read
  size_t max_value_bytes = 256u << 20;  // largest single event or top-level value
};

struct ParseStats {
  uint64_t bytes = 0;   // bytes of JSON read
  uint64_t events = 0;  // events handed to the sink
};

// Parses the whole input: events go to sink, the top-level keys to header.
Status parse_trace(ByteSource& src, EventSink& sink, TraceHeader& header, ParseStats* stats = nullptr,
                   const ParseOptions& opts = {});

}  // namespace llmon::trace
