// FileTailer: follows the files named by paths and globs, hands out every
// line once, and keeps positions (FileCursor) from which a restarted tailer
// continues with nothing lost and nothing repeated.
//
// Rotation, as logrotate and applications do it:
// - rename (create): the tailer still holds the old file open; it drains it
//   to its end, reads any generations rotated since (a.log.2, a.log.1, newest
//   last), then the new file from 0. The renamed file stays open for
//   rotated_grace_ms and is read further if the writer still appends to it.
// - copytruncate and plain truncation: the file's bytes at the position no
//   longer match; the copy (a sibling whose bytes match the cursor, inode
//   aside) is read from the position to its end, then the file from 0.
// - inode reuse and identical heads: a file is the cursor's only when the
//   inode and the head and tail checksums all match (file_cursor.h).
// restore() gives the same recovery to a tailer that was down: the cursor's
// file is found where it is now (still in place, renamed to a sibling, or
// copied), read from the position, then every generation written after it.
// Generations are the siblings named BASE.N, BASE-SUFFIX and, with read_gz,
// BASE.N.gz (a .gz is read from its start, never resumed inside). A glob
// never tracks a name with such a suffix itself.
//
// A file that disappears is drained and closed; one that appears later is read
// from 0. Files present at the first poll with no cursor start at their end
// (at a line boundary) unless from_beginning, or unless restore() had cursors
// and the file was created (statx birth time) after the newest of them was
// taken, less 5 s: such a file appeared while the previous tailer was down
// or before it got to it, so none of its lines were handed out and all are
// read (a writer that starts as the agent is killed loses nothing). Read errors are counted and
// retried at the next poll; they never stop the other files.
// Not thread-safe: one thread polls.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "logwatch/file_cursor.h"

namespace llmon::logwatch {

struct TailerOptions {
  std::vector<std::string> patterns;          // file paths and globs (glob(3) syntax)
  size_t max_line = 64 * 1024;                // longer lines are cut (and counted)
  bool from_beginning = false;                // files found at the first poll without a cursor: read from 0
  bool read_gz = false;                       // read rotated BASE.N.gz generations
  int64_t rotated_grace_ms = 5000;            // keep reading a renamed file this long
  uint64_t max_bytes_per_poll = 64ull << 20;  // per file; the rest at the next poll
};

struct TailerStats {
  uint64_t lines = 0;
  uint64_t bytes = 0;
  uint64_t truncated_lines = 0;  // lines cut at max_line
  uint64_t rotations = 0;        // renames and truncations seen
  uint64_t read_errors = 0;
  uint64_t files = 0;  // files followed now
};

class FileTailer {
 public:
  // path: the tracked path (a rotated generation's lines carry the path of
  // the file it was rotated from).
  using LineSink = std::function<void(const std::string& path, std::string_view line)>;

  FileTailer(TailerOptions options, const base::Clock& clock);
  ~FileTailer();
  FileTailer(const FileTailer&) = delete;
  FileTailer& operator=(const FileTailer&) = delete;

  // Before the first poll: the positions a previous tailer saved.
  void restore(std::vector<FileCursor> cursors);
  // Reads what is new in every file; the returned status is the first error
  // (a pattern that does not expand is not one).
  Status poll(const LineSink& sink);
  // The positions after the lines handed out so far, one per followed file
  // (and per renamed file still being drained).
  std::vector<FileCursor> cursors() const;
  // The directories to watch (inotify) for new, renamed and growing files.
  std::vector<std::string> directories() const;
  const TailerStats& stats() const { return stats_; }

 private:
  struct Follow;
  struct Candidate;
  void discover(const LineSink& sink);
  void recover(const FileCursor& c, const LineSink& sink);
  void poll_follow(Follow& f, const LineSink& sink);
  void handle_rotation(Follow& f, const LineSink& sink);
  void read_newer(const std::string& path, std::vector<Candidate>& cands, size_t from, int64_t min_mtime_ns,
                  int live_fd, const LineSink& sink);
  std::vector<Candidate> generations(const std::string& path, uint64_t exclude_dev, uint64_t exclude_ino) const;
  bool claimed(uint64_t dev, uint64_t ino) const;
  void read_to_end(Follow& f, const LineSink& sink, bool all);
  void read_candidate(const std::string& path, Candidate& cand, uint64_t from, const LineSink& sink);
  Status open_follow(const std::string& path, bool at_end, std::unique_ptr<Follow>& out);
  void note_error(const Status& s);

  TailerOptions opt_;
  const base::Clock& clock_;
  std::map<std::string, std::unique_ptr<Follow>> follows_;  // by tracked path
  std::vector<std::unique_ptr<Follow>> draining_;           // renamed away, still read
  std::vector<FileCursor> pending_restore_;
  int64_t restored_saved_ms_ = 0;                               // the newest restored cursor's saved_ms (0: none)
  std::vector<std::pair<std::string, GenerationId>> finished_;  // (path, generation) read to the end, newest last
  void finish(const std::string& path, const struct stat& st);
  bool finished(const struct stat& st) const;
  bool first_poll_ = true;
  Status first_error_;
  TailerStats stats_;
};

}  // namespace llmon::logwatch
