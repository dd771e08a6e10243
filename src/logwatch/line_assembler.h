// LineAssembler: turns the bytes of one stream (a file read in chunks) into
// complete lines, remembering the stream offset just past each line so a
// position can be saved that covers exactly the lines handed out.
//
// A line is the bytes before '\n' (a trailing '\r' is kept: it is the
// writer's). A line longer than max_line bytes is cut: its first max_line
// bytes are handed out once, the rest up to the next '\n' is skipped, and
// truncated() counts it. Bytes are never interpreted: NUL, invalid UTF-8 and
// binary garbage pass through. Not thread-safe; one per stream.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace llmon::logwatch {

class LineAssembler {
 public:
  // line: the line's bytes; end_offset: the stream offset just past its '\n'.
  using Sink = std::function<void(std::string_view line, uint64_t end_offset)>;

  explicit LineAssembler(size_t max_line, uint64_t start_offset = 0)
      : max_line_(max_line == 0 ? 1 : max_line), offset_(start_offset), line_start_(start_offset) {}

  // Feeds the next bytes of the stream; calls sink for each line completed.
  void feed(std::string_view bytes, const Sink& sink);
  // Hands out a pending partial line (the stream will not grow: a rotated-away
  // file at its end), as if it ended in '\n' at the current offset.
  void flush(const Sink& sink);
  // Forgets any partial line; the stream continues at `offset`.
  void reset(uint64_t offset);

  // Offset just past the last line handed out (where a restart resumes).
  uint64_t committed_offset() const { return line_start_; }
  // Offset of the bytes fed so far (>= committed_offset()).
  uint64_t fed_offset() const { return offset_; }
  bool has_partial() const { return offset_ != line_start_; }
  uint64_t truncated() const { return truncated_; }

 private:
  size_t max_line_;
  uint64_t offset_;      // bytes fed so far, as a stream offset
  uint64_t line_start_;  // offset where the pending line began
  std::string partial_;  // the pending line's kept bytes (at most max_line_)
  bool cut_ = false;     // the pending line was already handed out, cut
  uint64_t truncated_ = 0;
};

}  // namespace llmon::logwatch
