// ChunkStore: closed chunks persisted in numbered segments under DIR/chunks/
// (a .dat file of chunk bytes and a .idx file of fixed-size records: 32 bytes,
// or 44 in version-1 segments), as specified in docs/format/chunks.md (keep
// the two in sync). Consecutive chunks of one series in a batch are stored
// as one group chunk (docs/format/chunk.md, encoding 4) under one record;
// write() still returns each chunk's own location inside it, so a chunk
// written by this process reads as before.
//
// open() recovers: bad index records are dropped alone, torn tails truncated,
// and every valid chunk is returned (as PersistedChunk) for the head to
// attach. write() persists a batch durably (data fdatasync'd before its index
// records, which are fdatasync'd before write() returns) after checking free
// space; on any failure nothing of the batch is visible and the files are as
// before. Retention removes whole segments.
//
// Reads go through SegmentData (shared_ptr, pread, CRC-checked), so a query
// keeps a segment readable after remove_segment() unlinks it.
//
// Thread-safety: write(), remove_segment() and the accessors may be called
// from different threads (one internal mutex); SegmentData::read is
// thread-safe (pread).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "storage/storage.h"
#include "tsdb/file_util.h"

namespace llmon::tsdb {

// Index record sizes by .idx version (docs/format/chunks.md "Index file").
inline constexpr size_t kIndexRecordSizeV1 = 44;
inline constexpr size_t kIndexRecordSizeV2 = 32;
inline constexpr size_t kSegmentHeaderSize = 8;

// One segment's data file, open for reading.
class SegmentData {
 public:
  SegmentData(uint32_t id, std::string path, int fd) : id_(id), path_(std::move(path)), fd_(fd) {}
  ~SegmentData();
  SegmentData(const SegmentData&) = delete;
  SegmentData& operator=(const SegmentData&) = delete;

  // The chunk at [offset, offset+length), checked against crc (error names
  // the file and offset on a mismatch or short read).
  Expected<std::vector<uint8_t>> read(uint32_t offset, uint32_t length, uint32_t crc) const;
  uint32_t id() const { return id_; }
  const std::string& path() const { return path_; }

 private:
  uint32_t id_;
  std::string path_;
  int fd_;
};

// Where a persisted chunk is.
struct ChunkLocation {
  std::shared_ptr<const SegmentData> segment;
  uint32_t offset = 0;
  uint32_t length = 0;
  uint32_t crc = 0;
};

struct ChunkMeta {
  storage::SeriesRef ref = 0;
  int64_t min_t = 0;
  int64_t max_t = 0;
  uint16_t num_samples = 0;
};

struct PersistedChunk {
  ChunkMeta meta;
  ChunkLocation loc;
};

// A closed chunk to persist.
struct PendingChunk {
  ChunkMeta meta;
  std::shared_ptr<const std::vector<uint8_t>> bytes;
};

struct SegmentInfo {
  uint32_t id = 0;
  int64_t min_t = 0;  // of its chunks (0/0 when empty)
  int64_t max_t = 0;
  uint64_t bytes = 0;  // .dat + .idx
  size_t chunks = 0;
};

struct ChunkStoreOptions {
  // A batch's consecutive chunks of one series are grouped under one index
  // record while the group holds at most this many samples (a read skips
  // the parts before its start by their headers and decodes from a part's
  // start). 0: no groups.
  size_t group_max_samples = 8192;
  // Version-2 (32-byte) index records in new segments; false: version 1.
  bool compact_index = true;
  uint64_t segment_bytes = 64ull << 20;
  int64_t segment_span_ms = 24ll * 3600 * 1000;
  // write() refuses a batch that would leave less than this free.
  uint64_t min_free_bytes = 256ull << 20;
  FreeSpaceFn free_space = free_bytes;  // injectable for tests
  // Open for inspection only: nothing is truncated or written (write() errors).
  bool read_only = false;
};

struct ChunkStoreRecovery {
  std::vector<PersistedChunk> chunks;  // every valid chunk, by segment then offset
  std::vector<std::string> notes;      // what was repaired or dropped, naming file and offset
  uint64_t dropped_records = 0;
  uint64_t truncated_bytes = 0;
};

class ChunkStore {
 public:
  static Expected<std::unique_ptr<ChunkStore>> open(const std::string& dir, ChunkStoreOptions options,
                                                    ChunkStoreRecovery* recovery);
  ~ChunkStore();
  ChunkStore(const ChunkStore&) = delete;
  ChunkStore& operator=(const ChunkStore&) = delete;

  // Persists the batch (see the header comment); the locations are in batch order.
  Expected<std::vector<ChunkLocation>> write(const std::vector<PendingChunk>& batch);
  // Unlinks a segment's files (never the active one: error).
  Status remove_segment(uint32_t id);

  std::vector<SegmentInfo> segments() const;  // oldest first
  uint64_t disk_bytes() const;
  uint32_t active_segment() const;
  const std::string& dir() const { return dir_; }

 private:
  struct Segment;
  ChunkStore(std::string dir, ChunkStoreOptions options);
  Status start_segment_locked(uint32_t id, uint8_t idx_version);

  std::string dir_;
  ChunkStoreOptions options_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Segment>> segments_;  // oldest first; back() is active if it has idx_fd
  uint32_t next_id_ = 1;
};

std::string segment_data_path(const std::string& dir, uint32_t id);
std::string segment_index_path(const std::string& dir, uint32_t id);

}  // namespace llmon::tsdb
