// EventJournal: the logwatch's events on disk, with the positions they cover.
//
// Files: DIR/events-<first commit, 20 digits>.jsonl, one JSON object a line:
//   {"event": {...event_json...}}               an event, or a later update of it (same id)
//   {"commit": N, "positions": "<opaque>"}       ends every commit
// A commit (a batch of events plus the tailers' positions after them) is one
// write(2) and one fdatasync(2): after a crash the journal is cut back to the
// end of its last commit line, so the events kept and the positions kept
// always agree — a restart neither repeats nor loses an event.
// Segments roll at segment_bytes; whole segments are removed when all their
// events are older than the retention or while the total is over max_bytes
// (oldest first; never the segment being written).
//
// query() and query_events() read every segment and fold updates by id (the
// latest wins); query_events() opens nothing for writing, so `llmon events`
// may read the directory of a running agent. Not thread-safe: the watcher
// thread commits; readers use query_events().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "base/unique_fd.h"
#include "logwatch/event.h"

namespace llmon::logwatch {

struct JournalOptions {
  std::string dir;
  int64_t retention_ms = 7LL * 24 * 3600 * 1000;
  uint64_t max_bytes = 256ull << 20;
  uint64_t segment_bytes = 16ull << 20;
};

struct EventQuery {
  int64_t start_ms = INT64_MIN;  // events whose [first_ms, time_ms] meets [start, end]
  int64_t end_ms = INT64_MAX;
  std::string rule;    // "" any
  std::string source;  // "" any; else exact, or a glob
  std::optional<Severity> min_severity;
  size_t limit = 100;  // newest first
};

struct JournalStats {
  uint64_t commits = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;  // in all segments
  uint64_t segments = 0;
  uint64_t write_errors = 0;
  uint64_t torn_bytes_cut = 0;  // cut at open: a commit the crash interrupted
  uint64_t removed_segments = 0;
};

class EventJournal {
 public:
  // Creates DIR if needed; recovers the last commit. Errors name the file.
  static Expected<std::unique_ptr<EventJournal>> open(JournalOptions options, const base::Clock& clock);
  ~EventJournal();

  // Appends events and the positions after them; durable when it returns ok.
  // On error nothing of the batch counts (the next open cuts it away) and the
  // caller must not save positions past the previous commit.
  Status commit(const std::vector<Event>& events, std::string_view positions);
  // The positions of the last commit ("" before any), and its number.
  const std::string& positions() const { return positions_; }
  uint64_t last_commit() const { return commit_; }
  uint64_t max_event_id() const { return max_id_; }
  const JournalStats& stats() const { return stats_; }
  Expected<std::vector<Event>> query(const EventQuery& q) const;

 private:
  EventJournal(JournalOptions options, const base::Clock& clock) : opt_(std::move(options)), clock_(clock) {}
  Status recover();
  Status open_segment(uint64_t first_commit);
  void enforce_retention();

  JournalOptions opt_;
  const base::Clock& clock_;
  base::UniqueFd fd_;
  std::string segment_;  // the path being written
  uint64_t segment_size_ = 0;
  std::string positions_;
  uint64_t commit_ = 0;
  uint64_t max_id_ = 0;
  JournalStats stats_;
};

Expected<std::vector<Event>> query_events(const std::string& dir, const EventQuery& q);

}  // namespace llmon::logwatch
