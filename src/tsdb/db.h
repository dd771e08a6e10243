// Db: the persistent time-series store, a storage::Storage over a data
// directory (docs/architecture.md "Time-series store"):
//
//   DIR/lock       flock()ed by the one process that owns DIR
//   DIR/series/    series log: ref <-> labels, tombstones (docs/format/wal.md)
//   DIR/wal/       write-ahead log: one samples record per commit (wal.md)
//   DIR/chunks/    closed chunks in segments (docs/format/chunks.md)
//
// Write path: an Appender buffers a cycle; commit() write()s the new series
// to the series log and the samples to the WAL, then applies them to the
// in-memory Head. So a SIGKILL after commit() returns loses nothing; the logs
// are fdatasync()ed every `fsync_interval_ms` (0 = at every commit), which
// bounds what a power cut can lose. When a commit first crosses a chunk-range
// boundary W (2 h, aligned), the WAL is rolled; once the newest sample is
// `flush_delay_ms` past W, the background thread closes every chunk older than W, persists all closed chunks to segments
// (data fdatasync'd before index), releases their bytes from memory, and
// deletes the WAL segments written before W.
//
// Open = recovery: series log, then chunk segments (bad records dropped
// alone), then WAL replay of samples newer than each series' persisted data.
// Every repair is logged with the file and offset and counted (stats()).
//
// Never fills the disk: a commit is refused (error, nothing applied, counted)
// while the filesystem has less than `min_free_bytes` free or a write fails
// (ENOSPC...); appends resume by themselves when space returns. Retention
// deletes whole segments older than `retention_ms`, and the oldest segments
// while the directory exceeds `retention_bytes`.
//
// Thread-safety: as storage::Storage (commits are serialised internally;
// queries run concurrently with them). flush()/apply_retention() may be
// called from any thread. The Db must outlive its appenders and queriers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "storage/storage.h"
#include "tsdb/chunk_store.h"
#include "tsdb/head.h"

namespace llmon::tsdb {

namespace wal {
class LogWriter;
struct SampleEntry;
}  // namespace wal

struct DbOptions {
  std::string path = "llmon-data";
  int64_t retention_ms = 15ll * 24 * 3600 * 1000;  // --storage.retention.time
  uint64_t retention_bytes = 0;                    // --storage.retention.size; 0 = no limit
  int64_t fsync_interval_ms = 1000;                // --storage.fsync-interval; 0 = every commit
  uint64_t min_free_bytes = 256ull << 20;          // --storage.min-free-space
  uint64_t wal_segment_bytes = 16ull << 20;
  ChunkStoreOptions chunks;  // its min_free_bytes/free_space are set from the above
  FreeSpaceFn free_space = free_bytes;
  HeadOptions head;
  // A boundary W is flushed (chunks before it closed and persisted) once the
  // newest committed sample is W + this: series that lag behind the newest
  // (backfills, slow senders) then still land in their open chunk instead of
  // starting a second one. -1: a quarter of the chunk range (30 min at 2 h).
  // Explicit flush(true) ignores it.
  int64_t flush_delay_ms = -1;
  // Runs the fsync timer, chunk persistence and retention on a thread. Off:
  // the caller calls sync()/flush()/apply_retention() (tools, tests).
  bool background = true;
  int64_t retention_check_interval_ms = 60 * 1000;
  // Inspection of a directory another process may be writing: no lock, no
  // repairs, no writes (commits are refused), no retention, no thread.
  bool read_only = false;
};

struct DbStats {
  uint64_t series = 0;
  uint64_t head_chunks_in_memory = 0;
  uint64_t head_memory_bytes = 0;
  uint64_t persisted_chunks = 0;
  uint64_t chunk_segments = 0;
  uint64_t chunk_bytes = 0;  // .dat + .idx on disk
  uint64_t wal_bytes = 0;
  uint64_t series_log_bytes = 0;
  int64_t min_t = 0, max_t = 0;  // of stored data (0/0 when empty)
  uint64_t commits = 0;
  uint64_t samples_committed = 0;
  uint64_t commits_refused = 0;  // disk full / write errors
  bool writable = true;
  std::string last_error;
  uint64_t fsyncs = 0;
  uint64_t chunks_persisted = 0;  // since open
  uint64_t persist_errors = 0;
  uint64_t retention_segments_removed = 0;
  uint64_t retention_series_removed = 0;
  // Recovery (at open):
  uint64_t recovered_series = 0;
  uint64_t recovered_chunks = 0;
  uint64_t replayed_samples = 0;
  uint64_t replay_skipped = 0;  // already persisted, or for unknown series
  uint64_t repairs = 0;         // corruptions/torn tails found and dropped
  HeadCounters head;
};

class Db final : public storage::Storage {
 public:
  static Expected<std::unique_ptr<Db>> open(DbOptions options, base::Logger& log, const base::Clock& clock);
  ~Db() override;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  std::unique_ptr<storage::Appender> appender() override;
  Expected<std::unique_ptr<storage::Querier>> querier(int64_t mint_ms, int64_t maxt_ms) override;

  // fdatasync()s the series log and the WAL.
  Status sync();
  // Persists closed chunks and deletes the WAL segments they make redundant.
  // With close_open, first closes every open chunk (backfill tools: afterwards
  // everything is in segments and the WAL is empty).
  Status flush(bool close_open = false);
  // Applies time and size retention now (the background thread does it every
  // retention_check_interval_ms).
  Status apply_retention();
  // Stops the background thread, persists closed chunks, syncs. Idempotent;
  // the destructor calls it.
  Status close();

  DbStats stats() const;
  const DbOptions& options() const { return options_; }
  const Head& head() const { return head_; }

 private:
  friend class DbAppender;
  Db(DbOptions options, base::Logger& log, const base::Clock& clock);
  Status recover();
  Status commit(std::unique_ptr<storage::Appender> head_app, std::vector<wal::SampleEntry>& samples);
  Status check_space_locked();
  // Persists the boundaries that are due (all: every pending one).
  Status flush_boundaries(bool all);
  size_t boundaries_due_locked(bool all) const;
  // Writes every closed, unpersisted chunk to segments (in batches) and
  // releases their bytes; counts errors.
  Status persist_closed_chunks();
  Status rewrite_series_log_locked();
  Status recover_series_dirs();
  void background_loop();

  DbOptions options_;
  base::Logger& log_;
  const base::Clock& clock_;
  int lock_fd_ = -1;
  Head head_;
  std::unique_ptr<ChunkStore> chunks_;

  // Commit path (series log + WAL writers), guarded by commit_mu_.
  mutable std::mutex commit_mu_;
  std::unique_ptr<wal::LogWriter> wal_;
  std::unique_ptr<wal::LogWriter> series_log_;
  storage::SeriesRef logged_max_ref_ = 0;
  int64_t next_boundary_;             // the next chunk-range boundary past the newest sample
  int64_t newest_t_;                  // newest committed sample
  int64_t flush_delay_ms_ = 0;
  std::vector<std::pair<int64_t, uint32_t>> boundaries_;  // (W, first WAL segment after W) to flush
  bool dirty_ = false;                // written since the last sync
  uint64_t tombstones_in_log_ = 0;    // tombstoned series in the series log
  std::string encode_buf_, series_buf_;

  // DbAppenders' sample buffers, kept for the next appenders (a steady cycle
  // does not grow a fresh vector sample by sample).
  std::vector<wal::SampleEntry> take_sample_buffer();
  void give_sample_buffer(std::vector<wal::SampleEntry> v);
  std::mutex spare_mu_;
  std::vector<std::vector<wal::SampleEntry>> spare_samples_;

  std::mutex flush_mu_;  // one flush/retention at a time

  mutable std::mutex stats_mu_;
  // Head::memory() walks every series: stats() reuses it for up to 10 s
  // while the series count is unchanged (the collector asks every cycle).
  mutable std::mutex memory_mu_;
  mutable HeadMemory memory_cache_;
  mutable double memory_at_ = -1e18;
  DbStats counters_;

  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  bool stop_ = false;
  bool closed_ = false;  // under commit_mu_: commits refused
  std::atomic<bool> close_called_{false};
  std::thread bg_;
};

}  // namespace llmon::tsdb
