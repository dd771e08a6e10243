// Internals shared by head.cpp (series, appends, retention) and
// head_querier.cpp (reads). Not part of the tsdb interface. All fields are
// guarded by Head::mu_ (written under the exclusive lock), except
// MemSeries::owner and the pending sample it guards (see there).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "tsdb/chunk.h"
#include "tsdb/chunk_store.h"
#include "tsdb/head.h"

namespace llmon::tsdb::head_detail {

inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

// In memory (`bytes`) until persisted; then `loc` says where it is on disk
// and `bytes` is released.
struct ClosedChunk {
  std::shared_ptr<const std::vector<uint8_t>> bytes;
  ChunkLocation loc;
  int64_t min_t = 0;
  int64_t max_t = 0;
  uint64_t first_idx = 0;  // series-wide index of its first sample
  uint32_t num_samples = 0;
  bool persisted() const { return loc.segment != nullptr; }
  size_t mem_bytes() const { return bytes ? bytes->size() : 0; }
};

// Before the commit with `epoch` the series held `count_before` samples up to
// `max_t_before`; kept only while a querier older than that commit lives.
struct CommitMark {
  uint64_t epoch = 0;
  uint64_t count_before = 0;
  int64_t max_t_before = kNoTime;
};

// Laid out for the write path: the first cache line holds what append()
// reads and writes (docs/performance.md "Scraping applications (issue 19)"),
// the next what commit() adds (commit marks, open chunk state).
struct alignas(64) MemSeries {
  MemSeries(storage::SeriesRef r, uint64_t h, Encoding e) : hash(h), ref(r), open(e) {}

  // --- append()'s line ---
  uint64_t hash;       // Labels::hash(), to verify refs cheaply
  uint64_t total = 0;  // samples ever appended (indexes are series-wide)
  int64_t max_t = kNoTime;
  uint64_t last_v_bits = 0;
  // The appender (HeadAppender::id_, never 0) that holds buffered samples of
  // this series, 0 if none. Claimed by compare-exchange from 0 under the
  // shared lock, given back by that appender's commit or rollback. Only the
  // owner reads or writes pending_t / pending_v_bits: its newest buffered
  // sample. An appender that finds another owner keeps its own newest
  // sample in AppendBuffers::last instead.
  std::atomic<uint64_t> owner{0};
  int64_t pending_t = kNoTime;
  uint64_t pending_v_bits = 0;
  bool last_v_known = true;  // false after recovery from chunks not decoded
  // Set by a truncation that found the series without samples; the next one
  // removes it (a series just created by append() gets its sample at commit).
  bool empty_at_truncation = false;

  // --- commit()'s ---
  // Where the series appended kAppendAhead samples after this one in the
  // last commit that appended it lives: append() prefetches it (callers keep
  // their order from cycle to cycle). A hint only, never dereferenced (it
  // may be stale after a truncation).
  const void* next_hint = nullptr;
  storage::SeriesRef ref;
  uint64_t last_epoch = 0;  // last commit that appended
  int64_t open_min_t = kNoTime;
  uint64_t open_first_idx = 0;
  std::vector<CommitMark> marks;
  ChunkEncoder open;
  std::vector<ClosedChunk> closed;  // oldest first

  int64_t min_t() const { return closed.empty() ? open_min_t : closed.front().min_t; }
  bool empty() const { return closed.empty() && open.num_samples() == 0; }
};

// An appender's buffers, handed back to the Head after commit/rollback so
// the next cycle's appender reuses them (no allocation in steady state).
struct AppendBuffers {
  // `series` is valid while Head::series_gen_ is what it was when the
  // appender buffered its first sample (no series removed since).
  struct Pending {
    MemSeries* series;
    storage::SeriesRef ref;
    int64_t t;
    uint64_t v_bits;
  };
  struct Last {
    int64_t t;
    uint64_t v_bits;
  };
  // Newest buffered sample of the series this appender could not own
  // (MemSeries::owner): open addressing on the ref (refs are never 0). Empty
  // in the usual case (one appender per series at a time).
  class LastMap {
   public:
    bool empty() const { return used_ == 0; }
    Last* find(storage::SeriesRef ref) {
      if (used_ == 0) return nullptr;
      for (size_t i = hash(ref);; i = (i + 1) & mask_) {
        if (slots_[i].ref == ref) return &slots_[i].last;
        if (slots_[i].ref == 0) return nullptr;
      }
    }
    void put(storage::SeriesRef ref, Last last) {
      if (Last* l = find(ref)) {
        *l = last;
        return;
      }
      if ((used_ + 1) * 2 > slots_.size()) grow();
      size_t i = hash(ref);
      while (slots_[i].ref != 0) i = (i + 1) & mask_;
      slots_[i] = {ref, last};
      ++used_;
    }
    // Empties the map, keeping its capacity (one pass over the slots, none
    // when empty).
    void clear() {
      if (used_ == 0) return;
      for (auto& slot : slots_) slot.ref = 0;
      used_ = 0;
    }

   private:
    struct Slot {
      storage::SeriesRef ref = 0;
      Last last{};
    };
    size_t hash(storage::SeriesRef ref) const {
      return static_cast<size_t>((ref * 0x9e3779b97f4a7c15ull) >> shift_);  // Fibonacci hashing
    }
    void grow() {
      std::vector<Slot> old = std::move(slots_);
      slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
      mask_ = slots_.size() - 1;
      shift_ = 64 - std::countr_zero(slots_.size());
      used_ = 0;
      for (const Slot& s : old) {
        if (s.ref != 0) put(s.ref, s.last);
      }
    }
    std::vector<Slot> slots_;
    size_t mask_ = 0;
    int shift_ = 63;
    size_t used_ = 0;
  };

  std::vector<Pending> pending;
  LastMap last;
};

}  // namespace llmon::tsdb::head_detail
