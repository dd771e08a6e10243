// A remote_write queue's durable read position in the store's WAL
// (docs/remote_write.md "Read position"): the next record to send starts at
// or after `offset` in WAL segment `segment`, and its first `skip` samples
// were already acknowledged. Saved with write_file_atomic() after every
// acknowledged batch as <storage.path>/remote_write/<queue-hash>.pos, a few
// lines of text:
//
//   llmon-remote-write-position 1
//   segment 7
//   offset 32768
//   skip 0
//   max_sent_ms 1733230000000
//
// Pure parse/format here; load/save do the file I/O. Not thread-safe (one
// queue owns its file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::remote {

struct ReadPosition {
  uint32_t segment = 0;  // 0: never read (start at the oldest segment)
  uint64_t offset = 0;
  uint64_t skip = 0;
  int64_t max_sent_ms = 0;  // highest timestamp acknowledged so far (0: none)
  bool operator==(const ReadPosition&) const = default;
};

std::string format_position(const ReadPosition& p);
// Error names the line ("line 3: ...").
Expected<ReadPosition> parse_position(std::string_view text);

// nullopt when the file does not exist; error when it cannot be read or parsed.
Expected<std::optional<ReadPosition>> load_position(const std::string& path);
Status save_position(const std::string& path, const ReadPosition& p);

}  // namespace llmon::remote
