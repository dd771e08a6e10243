// The head: the in-memory part of the time-series store, implementing
// storage::Storage. Per series: closed chunks (immutable byte vectors, shared
// with queries) plus one open ChunkEncoder; a series index (tsdb/index.h).
// Persistence is tsdb::Db's (db.h): it restores series and persisted chunks
// into the head, replays the WAL through appenders, and persists closed
// chunks (whose bytes the head then releases, reading them back from their
// segment on demand); hence stable numeric SeriesRefs (never reused) and
// chunks cut at multiples of `chunk_range_ms`.
//
// Concurrency: one std::shared_mutex for the whole head. An Appender buffers
// its cycle and applies it in commit() under ONE exclusive lock; append()
// takes the shared lock briefly to look up and check the series (the exclusive
// lock only to create a new one; ~16 % of append CPU, docs/performance.md
// "Head (in memory)"); its buffers go back to the head for the next
// appender, so a steady-state cycle does not allocate them. append() claims
// the series for its appender (an atomic owner tag in the series, given back
// at commit/rollback) and keeps its newest buffered sample there, so checking
// a sample against the cycle's earlier ones touches no other memory; a
// buffered sample keeps its series' address, which commit() uses (prefetching
// ahead) unless a truncation removed series in between (series_gen_). A query takes the shared lock once in
// select() to match series and copy chunk references plus a snapshot of each
// open chunk's bytes (the codec keeps a chunk decodable after every append);
// decoding happens afterwards, lock-free, on immutable bytes. Chosen over
// per-series locks because a cycle touches every series: one lock per commit
// and per select beats ~1 300 lock pairs, and the writer is a single thread.
//
// Isolation: a Querier sees exactly the commits made before it was created
// (Prometheus's head isolation): each commit gets an epoch; while queriers
// are alive, a series records for each commit the sample count before it, so
// later samples are cut off. Not isolated against truncate_before(), which may
// drop chunks an older querier would have read. label_names()/label_values()
// filter by series time range without isolation. The Head must outlive its
// appenders and queriers; SeriesSets and iterators own what they read.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "storage/storage.h"
#include "tsdb/chunk.h"
#include "tsdb/chunk_store.h"
#include "tsdb/index.h"

namespace llmon::tsdb {

struct HeadOptions {
  // Chunks are cut when a sample falls past the next multiple of this range
  // after the chunk's first sample (2 h: docs/performance.md "Chunk codec"
  // measured 1 h and 2 h within 0.3 % of each other, 120 samples +0.16 B/sample).
  int64_t chunk_range_ms = 2 * 3600 * 1000;
  // ... or when a chunk holds this many samples (the codec's limit at most).
  // A read decodes a chunk from its start (a seek skips whole chunks and a
  // group's parts, not samples inside one), so this bounds what an instant
  // query decodes per series: 512 samples keeps 1 s data's instant queries
  // at Prometheus's cost, for +3 % on disk against uncut 2 h chunks
  // (docs/performance.md "Instant queries on 1 s data"). 15 s data (480
  // samples in 2 h) is not cut.
  size_t chunk_max_samples = 512;
  Encoding encoding = Encoding::kXorInt;
};

// Rejected samples, one counter per reason (storage.h's Appender contract).
struct HeadCounters {
  uint64_t out_of_order = 0;
  uint64_t duplicate = 0;  // same timestamp, different value
  uint64_t out_of_bounds = 0;
  uint64_t unknown_ref = 0;  // stale/foreign ref without labels to recreate it
  uint64_t samples_appended = 0;
  uint64_t corrupt_chunks = 0;  // persisted chunks skipped by reads (CRC mismatch, I/O error)
};

// Bytes held, for `llmon tsdb inspect`.
struct HeadMemory {
  size_t series = 0;
  size_t closed_chunks = 0;
  uint64_t samples = 0;
  uint64_t persisted_samples = 0;  // in chunks that are on disk
  size_t persisted_chunks = 0;
  size_t chunk_bytes = 0;   // in-memory closed chunk bytes + open chunk bytes
  size_t series_bytes = 0;  // per-series structures (estimated)
  size_t index_bytes = 0;   // labels, hash map, postings (estimated)
  // As min_time() / max_time() give them, from the same pass.
  int64_t min_t = std::numeric_limits<int64_t>::max();
  int64_t max_t = std::numeric_limits<int64_t>::min();
  size_t total() const { return chunk_bytes + series_bytes + index_bytes; }
};

struct TruncateResult {
  size_t chunks_removed = 0;
  size_t series_removed = 0;
  std::vector<storage::SeriesRef> removed;  // the removed series' refs
};

namespace head_detail {
struct MemSeries;
struct AppendBuffers;
class HeadAppender;
class HeadQuerier;
}  // namespace head_detail

class Head final : public storage::Storage {
 public:
  explicit Head(HeadOptions options = {});
  ~Head() override;
  Head(const Head&) = delete;
  Head& operator=(const Head&) = delete;

  std::unique_ptr<storage::Appender> appender() override;
  Expected<std::unique_ptr<storage::Querier>> querier(int64_t mint_ms, int64_t maxt_ms) override;

  // Retention: drops whole chunks whose newest sample is older than t_ms, and
  // series with nothing left; from then on samples older than t_ms are "out
  // of bounds". Removed series' refs become unknown (append reports them).
  TruncateResult truncate_before(int64_t t_ms);

  HeadMemory memory() const;
  HeadCounters counters() const;
  size_t num_series() const;
  // Lowest appendable timestamp (INT64_MIN until the first truncation).
  int64_t min_valid_time() const;
  int64_t max_time() const;  // newest sample of any series (INT64_MIN if none)
  int64_t min_time() const;  // oldest sample held (INT64_MAX if none)

  // --- Persistence hooks, used by tsdb::Db (db.h) ---
  // Recreates a series under its stored ref (recovery). Error if the ref is
  // not above every existing ref or the labels already exist.
  Status restore_series(storage::SeriesRef ref, const model::Labels& labels);
  // Attaches a persisted chunk to its series (recovery, any order); false if
  // the series is unknown (a chunk of a series dropped by retention).
  bool attach_chunk(const PersistedChunk& chunk);
  // After attaching: orders each series' chunks, drops overlapping ones (kept:
  // the first attached), renumbers sample indexes. Returns chunks dropped.
  size_t finish_recovery();
  // Closes each open chunk whose aligned range ends at or before t (series
  // that got no sample past the boundary), so everything older than t is in
  // closed chunks. Returns how many were closed.
  size_t close_chunks_before(int64_t t);
  // Closes every open chunk (a flush before shutdown of a backfill).
  size_t close_all_chunks();
  // Closed chunks not persisted yet, oldest first per series.
  std::vector<PendingChunk> unpersisted_chunks() const;
  // Records where the chunks went and releases their bytes (same order as
  // the batch given to ChunkStore::write).
  void mark_persisted(const std::vector<PendingChunk>& batch, const std::vector<ChunkLocation>& locs);
  // Series with ref > after, in ref order (for the series log).
  std::vector<std::pair<storage::SeriesRef, model::Labels>> series_after(storage::SeriesRef after) const;
  storage::SeriesRef max_ref() const;
  // New series get refs above `ref` (recovery: refs found in chunks or the
  // WAL whose series record was lost must never be handed to another series).
  void reserve_refs(storage::SeriesRef ref);
  // Cardinality for `llmon tsdb inspect`: series per value of label `name`,
  // and distinct values per label name (both unsorted).
  std::vector<std::pair<std::string, size_t>> series_per_value(std::string_view name) const;
  std::vector<std::pair<std::string, size_t>> values_per_label() const;
  // Zeroes the rejection counters (after WAL replay, whose skips are expected).
  void reset_counters();

 private:
  friend class head_detail::HeadAppender;
  friend class head_detail::HeadQuerier;

  head_detail::MemSeries* find_locked(storage::SeriesRef ref) const;
  void add_series_locked(storage::SeriesRef ref, uint64_t hash);
  void close_open_locked(head_detail::MemSeries& s);
  uint64_t low_watermark_locked() const;  // under qmu_

  HeadOptions options_;
  mutable std::shared_mutex mu_;
  Index index_;
  std::unordered_map<storage::SeriesRef, std::unique_ptr<head_detail::MemSeries>> series_;
  // Lookup by ref (refs are dense and never reused): find_locked() runs once
  // per appended sample (commit uses the buffered pointers), and a hash lookup
  // there was 23-57 % of append CPU. 8 bytes per ref ever handed out.
  std::vector<head_detail::MemSeries*> by_ref_;
  storage::SeriesRef next_ref_ = 1;
  // Bumped by every truncation that removes series: an appender's buffered
  // MemSeries pointers are valid while it is unchanged.
  uint64_t series_gen_ = 0;
  uint64_t epoch_ = 0;  // commits so far
  int64_t min_valid_t_;
  size_t closed_chunk_bytes_ = 0;
  size_t closed_chunks_ = 0;

  // Epochs of live queriers (registered while mu_ is held shared), and the
  // last appender's buffers for reuse.
  mutable std::mutex qmu_;
  std::multiset<uint64_t> live_queriers_;
  std::unique_ptr<head_detail::AppendBuffers> spare_buffers_;

  std::atomic<uint64_t> next_appender_id_{1};  // MemSeries::owner tags (0: none)
  std::atomic<uint64_t> out_of_order_{0}, duplicate_{0}, out_of_bounds_{0}, unknown_ref_{0}, appended_{0};
  // Shared with iterators, which may outlive a querier.
  std::shared_ptr<std::atomic<uint64_t>> corrupt_chunks_ = std::make_shared<std::atomic<uint64_t>>(0);
};

}  // namespace llmon::tsdb
