// Internals shared by head.cpp (series, appends, retention) and
// head_querier.cpp (reads). Not part of the tsdb interface. All fields are
// guarded by Head::mu_ (written under the exclusive lock).
#pragma once

#include <algorithm>
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

struct MemSeries {
  MemSeries(storage::SeriesRef r, uint64_t h, Encoding e) : ref(r), hash(h), open(e) {}

  storage::SeriesRef ref;
  uint64_t hash;                    // Labels::hash(), to verify refs cheaply
  std::vector<ClosedChunk> closed;  // oldest first
  ChunkEncoder open;
  int64_t open_min_t = kNoTime;
  uint64_t open_first_idx = 0;
  uint64_t total = 0;  // samples ever appended (indexes are series-wide)
  int64_t max_t = kNoTime;
  uint64_t last_v_bits = 0;
  bool last_v_known = true;  // false after recovery from chunks not decoded
  // Set by a truncation that found the series without samples; the next one
  // removes it (a series just created by append() gets its sample at commit).
  bool empty_at_truncation = false;
  uint64_t last_epoch = 0;  // last commit that appended
  std::vector<CommitMark> marks;

  int64_t min_t() const { return closed.empty() ? open_min_t : closed.front().min_t; }
  bool empty() const { return closed.empty() && open.num_samples() == 0; }
};

// An appender's buffers, handed back to the Head after commit/rollback so
// the next cycle's appender reuses them (no allocation in steady state).
struct AppendBuffers {
  struct Pending {
    storage::SeriesRef ref;
    int64_t t;
    uint64_t v_bits;
  };
  struct Last {
    int64_t t;
    uint64_t v_bits;
  };
  // Newest buffered sample per series: open addressing on the ref (refs are
  // never 0).
  class LastMap {
   public:
    Last* find(storage::SeriesRef ref) {
      if (slots_.empty()) return nullptr;
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
    // Empties the map, keeping its capacity (one pass over the slots).
    void clear() {
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
