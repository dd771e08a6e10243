// FileCursor: where a tailer is in one file, and how to recognise that file
// again: device + inode, plus CRC-32s of its first bytes (the head) and of the
// bytes just before the position (the tail). The inode alone is not enough
// (filesystems reuse inode numbers; a file truncated and regrown keeps its
// inode), and the head alone is not enough (log files often begin with the
// same banner). A file "still is" the cursor's file when the inode matches and
// both checksums read back the same.
//
// fingerprint() and matches() read through pread(2) and never move a file
// offset. Plain data otherwise; JSON (de)serialisation is in cursor_json.h.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace llmon::logwatch {

inline constexpr uint32_t kFingerprintBytes = 256;

// A rotated generation read to its end, so as not to read it again: file
// times are coarse (a clock tick of several ms), and a copy made just before
// a truncation can look as new as the truncation.
struct GenerationId {
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const GenerationId&) const = default;
};

struct FileCursor {
  std::string path;  // the path the file was tailed under
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t offset = 0;    // just past the last line handed out
  uint32_t head_len = 0;  // bytes covered by head_crc (min(size, 256) when taken)
  uint32_t head_crc = 0;
  uint32_t tail_len = 0;  // bytes before offset covered by tail_crc
  uint32_t tail_crc = 0;
  int64_t saved_ms = 0;            // when this position was taken
  int64_t mtime_ns = 0;            // the file's modification time then (newer generations are newer than this)
  bool draining = false;           // a renamed-away file still being read to its end
  std::vector<GenerationId> done;  // generations of this path read to their end (the latest few)
};

// CRC-32 of `len` bytes of fd at `offset`; an error when fewer can be read.
Expected<uint32_t> crc_at(int fd, uint64_t offset, uint32_t len);

// Fills c.head_* and c.tail_* for fd at c.offset (file size `size`).
Status fingerprint(int fd, uint64_t size, FileCursor& c);

// True when the open file (fd, with stat st) is the cursor's file with the
// same bytes around c.offset: same dev/ino unless ignore_inode (a copy made by
// copytruncate), size >= offset, head and tail CRCs equal.
bool matches(int fd, const struct stat& st, const FileCursor& c, bool ignore_inode);

}  // namespace llmon::logwatch
