// RecordLog: a directory of numbered segment files holding CRC-framed records,
// used for the write-ahead log (DIR/wal/) and the series log (DIR/series/).
// Byte layout in docs/format/wal.md (keep the two in sync).
//
// Segments are sequences of fixed 32 KiB pages (the last page of a segment
// may be partial). A record is split into fragments (FULL, or FIRST, MIDDLE...,
// LAST) that never cross a page boundary; each fragment has a 7-byte header:
// type u8, length u16 BE, CRC32 u32 BE (zlib's crc32 over the type and length
// bytes and then the payload, so that a damaged header cannot pass for another
// valid fragment). When less than a header fits in a page, the rest of the
// page is zero padding. So a corrupt fragment costs at most the records
// touching its page, never the rest of the log: the reader resynchronises at
// the next page.
//
// Durability: append() hands the bytes to the kernel with one pwrite() before
// it returns (a SIGKILL afterwards loses nothing); sync() fdatasync()s; the
// destructor does not sync. A failed write (ENOSPC, EIO, EFBIG) is reported,
// the segment is truncated back to the end of the last whole record (so the
// log stays readable), and the writer stays usable: the next append retries.
//
// Not thread-safe: one owner (the store's commit path) per writer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::tsdb::wal {

inline constexpr size_t kPageSize = 32 * 1024;
inline constexpr size_t kFragmentHeaderSize = 7;

struct LogOptions {
  // A new segment is started before a batch that would take the current one
  // past this size (a batch larger than this gets a segment of its own).
  uint64_t segment_bytes = 16ull << 20;
};

// Segment files present in `dir`, sorted by number. Names are 8 decimal digits
// ("00000001"; a new log starts at 1); other files are ignored. Error if dir
// cannot be listed.
Expected<std::vector<uint32_t>> list_segments(const std::string& dir);
std::string segment_path(const std::string& dir, uint32_t segment);

class LogWriter {
 public:
  // Opens (creating dir if needed) for appending after the last segment: the
  // last segment's tail is checked first and any torn/corrupt bytes after the
  // last whole valid record are truncated (reported in *repair_note, if given,
  // naming file and offset). Appending continues in a fresh page of that
  // segment, or a new segment if it is full.
  static Expected<std::unique_ptr<LogWriter>> open(const std::string& dir, LogOptions options = {},
                                                   std::string* repair_note = nullptr);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Appends one record (any size, may be empty) and write()s it. On error the
  // log is as before the call (a segment started for it by rolling stays, empty).
  Status append(std::string_view record);
  // Same for several records with one write() (one cycle's records); they all
  // go into one segment (rolling happens before a batch that would take the
  // current segment past segment_bytes, never inside one).
  Status append_all(const std::vector<std::string_view>& records);
  // fdatasync() of the current segment (and of earlier segments written since
  // the last sync, left by a roll; and of the directory after a segment was
  // created or removed).
  Status sync();
  // Closes the current segment and starts the next (used before truncation so
  // that older segments can be removed whole). Returns the new segment number.
  Expected<uint32_t> roll();
  // Removes segments with numbers < `segment` (never the current one). The
  // directory is fsync'd by the next sync().
  Status remove_before(uint32_t segment);

  uint32_t current_segment() const;
  uint64_t bytes_written() const;  // since open, including padding and headers
  // Total size of all segment files of this log now.
  uint64_t disk_bytes() const;

 private:
  LogWriter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Corruption found while reading: where, and what was skipped.
struct Corruption {
  std::string file;      // the segment's path
  uint64_t offset = 0;   // start of the damaged stretch: the first fragment of
                         // the first record dropped, or the bad fragment
  uint64_t skipped = 0;  // bytes from offset to where reading resumed (the next
                         // delivered record, or the end of the segment)
  std::string reason;    // "crc mismatch at offset 32768", "torn record at end of
                         // segment at offset ...", "torn tail", "segment missing", ...
};

// Reads every record of the log in order, from segment `from` on. Records cut
// by corruption are skipped (whole) and reported through on_corruption; the
// reader then resynchronises at the next page start. A torn record at the very
// end of the last segment (a damaged stretch with no valid record after it) is
// reported with reason "torn tail" (exactly). Consecutive damage with no
// record delivered in between is one report. Every report, torn tail
// included, counts in ReadStats::corruptions.
// on_record's string_view is valid only during the call; returning an error
// from it stops the read with that error.
struct ReadStats {
  uint64_t records = 0;
  uint64_t bytes = 0;  // payload bytes of the records delivered
  uint64_t corruptions = 0;
};
Expected<ReadStats> read_log(const std::string& dir, uint32_t from,
                             const std::function<Status(std::string_view record)>& on_record,
                             const std::function<void(const Corruption&)>& on_corruption);

// Reads one segment from `from_offset` on (0, or an `end` handed out by an
// earlier call): on_record gets each record that starts at or after it, with
// its start and end offsets. This is the tailing read of remote_write's
// queues (docs/remote_write.md): the writer may be appending to the last
// segment meanwhile, so a record being written shows as a torn tail
// (reported, not delivered) and is read whole by a later call. Damage is
// reported as read_log() does, except for fragments before from_offset.
Status read_segment_from(const std::string& dir, uint32_t segment, uint64_t from_offset, bool last_segment,
                         const std::function<Status(std::string_view record, uint64_t start, uint64_t end)>& on_record,
                         const std::function<void(const Corruption&)>& on_corruption);

}  // namespace llmon::tsdb::wal
