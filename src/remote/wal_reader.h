// WalReader: a remote_write queue's view of the store's logs
// (docs/remote_write.md "Read position"). Reads samples from the WAL
// (<storage>/wal) from a ReadPosition on, a bounded number at a time, with
// tsdb::wal::read_segment_from(), and the labels of their series from the
// series log (<storage>/series), reloaded when a ref is not known yet (the
// store logs a series before any of its samples). Read-only: never writes
// the store's files, so it runs beside the store's own writer.
//
// Lost data is reported, never skipped silently: WAL segments removed
// before they were read (the store checkpointed them into chunks) and
// damaged records come back in ReadResult for the caller to fill or count.
// Not thread-safe: one queue thread owns a reader.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/labels.h"
#include "remote/read_position.h"
#include "tsdb/wal/records.h"

namespace llmon::remote {

struct ReadResult {
  ReadPosition next;        // where the next read starts (max_sent_ms copied from the input)
  bool caught_up = false;   // reached the end of the newest segment
  uint32_t lost_first = 0;  // segments [lost_first, lost_end) were gone before being read
  uint32_t lost_end = 0;
  bool rewound = false;      // the position's segment was shorter than the position: re-read from its start
  uint64_t corruptions = 0;  // damaged stretches skipped (their records are lost)
  std::string corruption_detail;
};

class WalReader {
 public:
  explicit WalReader(std::string storage_path);

  // Appends up to `max_samples` samples from `from` on to `out`.
  Expected<ReadResult> read(const ReadPosition& from, size_t max_samples, std::vector<tsdb::wal::SampleEntry>& out);

  // The labels of `ref`, or nullptr when the series log does not have it
  // (even after a reload) or could not be read (then take_reload_failure()
  // is true: try again later rather than drop).
  const model::Labels* labels(storage::SeriesRef ref);
  bool take_reload_failure() { return std::exchange(reload_failed_, false); }

  std::string wal_dir() const { return path_ + "/wal"; }

 private:
  Status reload_series();

  std::string path_;
  std::unordered_map<storage::SeriesRef, model::Labels> series_;
  std::unordered_set<storage::SeriesRef> missing_;
  bool reload_failed_ = false;
  std::vector<tsdb::wal::SampleEntry> tmp_;
};

}  // namespace llmon::remote
