// KmsgReader: reads the kernel log's records from /dev/kmsg, or from a
// regular file of records (tests, replays), without blocking and without
// ever dying on an overrun (docs/logwatch-kmsg.md). It hands out parsed
// records in sequence order, skips what a resume cursor already covers and
// counts what was lost. Not thread-safe: one owner polls it.
//
// Device mode (a character device): opened O_NONBLOCK at the oldest record
// the ring holds; one read() is one record; EAGAIN ends a poll; EPIPE (the
// ring overwrote unread records) is counted in stats().overruns and reading
// goes on at the oldest record left. File mode (a regular file): records one
// per line, a record's dictionary lines (led by a space) right after it, read
// as the file grows; a partial last line waits for its newline; a file that
// shrank is read again from its start.
//
// Loss: every jump of the sequence number by more than one counts the records
// skipped in stats().dropped, whether or not an EPIPE was seen (and across a
// restart with a resume cursor of the same boot). Records with a sequence
// number at or below the cursor are skipped (they were handed out already),
// which makes reopening safe. A malformed record is counted and skipped. A
// read error other than EAGAIN/EPIPE/EINTR closes the descriptor, sets
// stats().up to false and is returned; the next poll reopens from the start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "base/unique_fd.h"
#include "logwatch/kmsg_record.h"

namespace llmon::logwatch {

// Where a reader stopped: the last sequence number handed out in one boot.
struct KmsgCursor {
  std::string boot_id;
  uint64_t seq = 0;
  bool valid = false;  // false: nothing handed out (or resumed) in this boot yet
};

struct KmsgStats {
  uint64_t records = 0;      // records handed out
  uint64_t dropped = 0;      // records lost: the sum of the sequence gaps
  uint64_t malformed = 0;    // records that did not parse (skipped)
  uint64_t overruns = 0;     // EPIPE reads (the ring overwrote unread records)
  bool up = false;           // the source is open and the last poll read it without error
  int64_t last_read_ms = 0;  // the clock at the end of the last poll without error (liveness)
};

// One read() of /dev/kmsg must hold a whole record (the kernel answers EINVAL
// otherwise; its records are at most 8 KiB).
inline constexpr size_t kKmsgReadBufferBytes = 16 * 1024;
// File mode: a line longer than this is cut off, counted as malformed and skipped to its newline.
inline constexpr size_t kKmsgMaxFileRecordBytes = 1024 * 1024;

class KmsgReader {
 public:
  // path: /dev/kmsg or a regular file of records. boot_id: this boot's id
  // (read_boot_id()). resume: with the same boot_id, records with
  // seq <= resume.seq are skipped and a gap after resume.seq counts as
  // dropped; another boot id reads everything. clock: for last_read_ms
  // (nullptr: the system clock; otherwise it must outlive the reader).
  static Expected<std::unique_ptr<KmsgReader>> open(const std::string& path, std::string boot_id, KmsgCursor resume,
                                                    const base::Clock* clock = nullptr);

  KmsgReader(const KmsgReader&) = delete;
  KmsgReader& operator=(const KmsgReader&) = delete;

  // Reads what is available now, without blocking, appending at most
  // max_records records to out. Malformed records, EPIPE and gaps are counted,
  // never returned as errors; a read error is (see above).
  Status poll(std::vector<KmsgRecord>& out, size_t max_records = 100000);

  // The descriptor to wait on (poll(2) on the device, inotify/stat on a
  // file); -1 while closed after an error.
  int fd() const { return fd_.get(); }
  bool is_device() const { return device_; }
  const std::string& path() const { return path_; }
  // The boot id and the last sequence number handed out (or resumed from).
  KmsgCursor cursor() const { return KmsgCursor{boot_id_, last_seq_, have_seq_}; }
  const KmsgStats& stats() const { return stats_; }

 private:
  KmsgReader(std::string path, std::string boot_id, const base::Clock* clock);
  Status reopen();
  Status fail(const char* what, int err);
  Status poll_device(std::vector<KmsgRecord>& out, size_t max_records);
  Status poll_file(std::vector<KmsgRecord>& out, size_t max_records);
  // Whole records of buf_ from pos_ on, at most max_records appended; returns how many.
  size_t take_file_records(std::vector<KmsgRecord>& out, size_t max_records);
  // Parses one raw record and hands it out unless the cursor covers it; true when appended.
  bool take(std::string_view raw, std::vector<KmsgRecord>& out);

  std::string path_;
  std::string boot_id_;
  base::SystemClock system_clock_;
  const base::Clock* clock_;
  base::UniqueFd fd_;
  bool device_ = false;
  std::string buf_;         // device: the read buffer; file: bytes read, from pos_ not yet taken
  size_t pos_ = 0;          // file: the first byte of buf_ not yet taken
  uint64_t file_read_ = 0;  // file: bytes of the file read into buf_
  bool skipping_ = false;   // file: discarding an over-long line up to its newline
  uint64_t last_seq_ = 0;
  bool have_seq_ = false;
  KmsgStats stats_;
};

// This boot's id (a UUID; the file's text trimmed). Errors name the path.
Expected<std::string> read_boot_id(const std::string& path = "/proc/sys/kernel/random/boot_id");

}  // namespace llmon::logwatch
