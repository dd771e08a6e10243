// Chunk segments on disk: docs/format/chunks.md.
#include "tsdb/chunk_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "base/dir_list.h"
#include "tsdb/chunk.h"

namespace llmon::tsdb {

namespace {

constexpr uint8_t kDataMagic[4] = {'L', 'L', 'M', 'C'};
constexpr uint8_t kIndexMagic[4] = {'L', 'L', 'M', 'I'};
constexpr uint8_t kDataVersion = 1;

size_t record_size(uint8_t version) {
  return version == 1 ? kIndexRecordSizeV1 : kIndexRecordSizeV2;
}

// One index record, either layout (docs/format/chunks.md "Index file").
struct IndexRecord {
  uint64_t ref = 0;
  int64_t min_t = 0, max_t = 0;
  uint32_t offset = 0, length = 0;
  uint16_t n = 0;
  uint32_t crc = 0;
};

bool fits_v2(const IndexRecord& r) {
  constexpr int64_t kT = int64_t{1} << 47;
  return r.ref < (uint64_t{1} << 40) && r.min_t >= -kT && r.min_t < kT &&
         static_cast<uint64_t>(r.max_t) - static_cast<uint64_t>(r.min_t) < (uint64_t{1} << 32) &&
         r.length < (uint32_t{1} << 24);
}

void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void put_record(uint8_t version, uint8_t* p, const IndexRecord& r) {
  if (version == 1) {
    put_u64le(p, r.ref);
    put_u64le(p + 8, static_cast<uint64_t>(r.min_t));
    put_u64le(p + 16, static_cast<uint64_t>(r.max_t));
    put_u32le(p + 24, r.offset);
    put_u32le(p + 28, r.length);
    put_u16le(p + 32, r.n);
    put_u16le(p + 34, 0);
    put_u32le(p + 36, r.crc);
    put_u32le(p + 40, crc32_of(p, 40));
    return;
  }
  put_le(p, r.ref, 5);
  put_le(p + 5, static_cast<uint64_t>(r.min_t), 6);
  put_u32le(p + 11, static_cast<uint32_t>(static_cast<uint64_t>(r.max_t) - static_cast<uint64_t>(r.min_t)));
  put_u32le(p + 15, r.offset);
  put_le(p + 19, r.length, 3);
  put_u16le(p + 22, r.n);
  put_u32le(p + 24, r.crc);
  put_u32le(p + 28, crc32_of(p, 28));
}

// False when the record's own CRC fails.
bool get_record(uint8_t version, const uint8_t* p, IndexRecord& r) {
  size_t size = record_size(version);
  if (crc32_of(p, size - 4) != get_u32le(p + size - 4)) return false;
  if (version == 1) {
    r.ref = get_u64le(p);
    r.min_t = static_cast<int64_t>(get_u64le(p + 8));
    r.max_t = static_cast<int64_t>(get_u64le(p + 16));
    r.offset = get_u32le(p + 24);
    r.length = get_u32le(p + 28);
    r.n = get_u16le(p + 32);
    r.crc = get_u32le(p + 36);
    return true;
  }
  r.ref = get_le(p, 5);
  uint64_t t = get_le(p + 5, 6);
  r.min_t = static_cast<int64_t>(t << 16) >> 16;  // sign-extend 48 bits
  r.max_t = static_cast<int64_t>(static_cast<uint64_t>(r.min_t) + get_u32le(p + 11));
  r.offset = get_u32le(p + 15);
  r.length = static_cast<uint32_t>(get_le(p + 19, 3));
  r.n = get_u16le(p + 22);
  r.crc = get_u32le(p + 24);
  return true;
}

std::string id_name(uint32_t id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08u", id);
  return buf;
}

// "00000012.dat" -> 12; 0 for any other name.
uint32_t parse_segment_name(const std::string& name, const char* ext) {
  if (name.size() != 12 || name.compare(8, 4, ext) != 0) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return v > std::numeric_limits<uint32_t>::max() ? 0 : static_cast<uint32_t>(v);
}

void make_header(uint8_t* h, const uint8_t magic[4], uint8_t version) {
  std::memcpy(h, magic, 4);
  h[4] = version;
  h[5] = h[6] = h[7] = 0;
}

bool header_ok(const uint8_t* h, const uint8_t magic[4], uint8_t max_version) {
  return std::memcmp(h, magic, 4) == 0 && h[4] >= 1 && h[4] <= max_version;
}

uint64_t file_size(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

Status truncate_file(int fd, const std::string& path, uint64_t size) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
    return Status::error(path + ": truncate to " + std::to_string(size) + " bytes: " + std::strerror(errno));
  return Status::ok();
}

}  // namespace

std::string segment_data_path(const std::string& dir, uint32_t id) {
  return dir + "/" + id_name(id) + ".dat";
}
std::string segment_index_path(const std::string& dir, uint32_t id) {
  return dir + "/" + id_name(id) + ".idx";
}

SegmentData::~SegmentData() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<std::vector<uint8_t>> SegmentData::read(uint32_t offset, uint32_t length, uint32_t crc) const {
  std::vector<uint8_t> out(length);
  if (Status st = pread_all(fd_, path_, out.data(), length, offset); !st) return st;
  if (crc32_of(out) != crc) {
    return Status::error(path_ + ": chunk at offset " + std::to_string(offset) + " (" + std::to_string(length) +
                         " bytes) fails its CRC-32 check");
  }
  return out;
}

struct ChunkStore::Segment {
  uint32_t id = 0;
  uint8_t idx_version = 2;
  std::shared_ptr<SegmentData> data;  // fd is read-write for the active segment
  int idx_fd = -1;                    // only for the active segment
  uint64_t dat_size = 0;
  uint64_t idx_size = 0;
  int64_t min_t = std::numeric_limits<int64_t>::max();
  int64_t max_t = std::numeric_limits<int64_t>::min();
  size_t chunks = 0;

  ~Segment() {
    if (idx_fd >= 0) ::close(idx_fd);
  }
};

ChunkStore::ChunkStore(std::string dir, ChunkStoreOptions options)
    : dir_(std::move(dir)), options_(std::move(options)) {
  if (!options_.free_space) options_.free_space = free_bytes;
}

ChunkStore::~ChunkStore() = default;

Expected<std::unique_ptr<ChunkStore>> ChunkStore::open(const std::string& dir, ChunkStoreOptions options,
                                                       ChunkStoreRecovery* recovery) {
  ChunkStoreRecovery local;
  ChunkStoreRecovery& rec = recovery != nullptr ? *recovery : local;
  if (Status st = make_dirs(dir); !st) return st;
  std::unique_ptr<ChunkStore> cs(new ChunkStore(dir, std::move(options)));
  std::vector<base::DirEntry> entries;
  if (Status st = base::list_dir(dir, entries); !st) return st;
  std::vector<uint32_t> ids;
  for (const auto& e : entries) {
    if (uint32_t id = parse_segment_name(e.name, ".dat"); id != 0) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  for (size_t k = 0; k < ids.size(); ++k) {
    uint32_t id = ids[k];
    bool last = k + 1 == ids.size() && !cs->options_.read_only;
    std::string dpath = segment_data_path(dir, id), ipath = segment_index_path(dir, id);
    int dfd = ::open(dpath.c_str(), (last ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (dfd < 0) return Status::error(dpath + ": open: " + std::strerror(errno));
    auto seg = std::make_unique<Segment>();
    seg->id = id;
    seg->data = std::make_shared<SegmentData>(id, dpath, dfd);
    seg->dat_size = file_size(dfd);
    // The newest segment cut short while being created (crash before its
    // headers were synced): it holds no chunk, so its debris is removed.
    if (k + 1 == ids.size() && !cs->options_.read_only && seg->dat_size <= kSegmentHeaderSize) {
      struct stat ist {};
      uint64_t isz = ::stat(ipath.c_str(), &ist) != 0 ? 0 : static_cast<uint64_t>(ist.st_size);
      if (isz <= kSegmentHeaderSize && (seg->dat_size < kSegmentHeaderSize || isz < kSegmentHeaderSize)) {
        rec.notes.push_back(dpath + ": segment creation was interrupted (torn tail: " + std::to_string(seg->dat_size) +
                            " + " + std::to_string(isz) + " bytes, no chunks); removed");
        seg.reset();
        ::unlink(ipath.c_str());
        ::unlink(dpath.c_str());
        (void)fsync_dir(dir);
        continue;
      }
    }
    uint8_t h[kSegmentHeaderSize] = {};
    if (seg->dat_size < kSegmentHeaderSize || !pread_all(dfd, dpath, h, sizeof h, 0).is_ok() ||
        !header_ok(h, kDataMagic, kDataVersion)) {
      rec.notes.push_back(dpath + ": not a chunk segment (bad header); ignored");
      continue;
    }
    int ifd = ::open(ipath.c_str(), (last ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (ifd < 0) {
      rec.notes.push_back(ipath + ": cannot open (" + std::strerror(errno) + "); segment " + id_name(id) + " ignored");
      continue;
    }
    uint64_t isize = file_size(ifd);
    std::vector<uint8_t> idx(isize);
    Status rs = isize > 0 ? pread_all(ifd, ipath, idx.data(), isize, 0) : Status::ok();
    if (!rs || isize < kSegmentHeaderSize || !header_ok(idx.data(), kIndexMagic, 2)) {
      rec.notes.push_back(ipath + ": not a chunk index (bad header); segment " + id_name(id) + " ignored");
      ::close(ifd);
      continue;
    }
    seg->idx_version = idx[4];
    const size_t rsize = record_size(seg->idx_version);
    uint64_t data_end = kSegmentHeaderSize;
    size_t nrec = (isize - kSegmentHeaderSize) / rsize;
    for (size_t r = 0; r < nrec; ++r) {
      const uint8_t* p = idx.data() + kSegmentHeaderSize + r * rsize;
      uint64_t off_in_idx = kSegmentHeaderSize + r * rsize;
      IndexRecord ir;
      if (!get_record(seg->idx_version, p, ir)) {
        rec.notes.push_back(ipath + ": record at offset " + std::to_string(off_in_idx) +
                            " fails its CRC-32 check; that chunk is dropped");
        ++rec.dropped_records;
        continue;
      }
      PersistedChunk c;
      c.meta.ref = ir.ref;
      c.meta.min_t = ir.min_t;
      c.meta.max_t = ir.max_t;
      c.loc.offset = ir.offset;
      c.loc.length = ir.length;
      c.meta.num_samples = ir.n;
      c.loc.crc = ir.crc;
      uint64_t end = static_cast<uint64_t>(c.loc.offset) + c.loc.length;
      if (c.meta.ref == 0 || c.loc.offset < kSegmentHeaderSize || c.loc.length == 0 || end > seg->dat_size ||
          c.meta.num_samples == 0 || c.meta.min_t > c.meta.max_t) {
        rec.notes.push_back(ipath + ": record at offset " + std::to_string(off_in_idx) + " points outside " + dpath +
                            " or is inconsistent; that chunk is dropped");
        ++rec.dropped_records;
        continue;
      }
      data_end = std::max(data_end, end);
      c.loc.segment = seg->data;
      seg->min_t = std::min(seg->min_t, c.meta.min_t);
      seg->max_t = std::max(seg->max_t, c.meta.max_t);
      ++seg->chunks;
      rec.chunks.push_back(std::move(c));
    }
    uint64_t good_isize = kSegmentHeaderSize + nrec * rsize;
    if (good_isize < isize) {
      rec.notes.push_back(ipath + ": torn record at offset " + std::to_string(good_isize) + " (" +
                          std::to_string(isize - good_isize) + " bytes) truncated");
      rec.truncated_bytes += isize - good_isize;
      if (last) {
        if (Status st = truncate_file(ifd, ipath, good_isize); !st) return st;
      }
    }
    seg->idx_size = good_isize;
    if (seg->dat_size > data_end) {
      // In the active segment: a batch whose index never reached the disk
      // (its samples are still in the WAL). In a sealed one: index records
      // lost (e.g. the .idx cut at a record boundary); those chunks are gone.
      if (last) {
        rec.notes.push_back(dpath + ": " + std::to_string(seg->dat_size - data_end) + " bytes after offset " +
                            std::to_string(data_end) + " have no index record (interrupted write); truncated");
        rec.truncated_bytes += seg->dat_size - data_end;
        if (Status st = truncate_file(dfd, dpath, data_end); !st) return st;
        seg->dat_size = data_end;
      } else {
        rec.notes.push_back(dpath + ": " + std::to_string(seg->dat_size - data_end) + " bytes after offset " +
                            std::to_string(data_end) + " have no index record in " + ipath +
                            " (index damaged); those chunks cannot be read");
        ++rec.dropped_records;
      }
    }
    if (last) {
      seg->idx_fd = ifd;
    } else {
      ::close(ifd);
    }
    cs->segments_.push_back(std::move(seg));
  }
  // Only a cleanly opened last segment may be appended to; anything else
  // gets a fresh number at the next write (never overwriting a file).
  if (!ids.empty()) cs->next_id_ = ids.back() + 1;
  if (!cs->segments_.empty() && cs->segments_.back()->idx_fd >= 0 && cs->segments_.back()->id == ids.back()) {
    cs->next_id_ = ids.back();  // the active one continues
  }
  return cs;
}

Status ChunkStore::start_segment_locked(uint32_t id, uint8_t idx_version) {
  std::string dpath = segment_data_path(dir_, id), ipath = segment_index_path(dir_, id);
  int dfd = ::open(dpath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (dfd < 0) return Status::error(dpath + ": create: " + std::strerror(errno));
  auto seg = std::make_unique<Segment>();
  seg->id = id;
  seg->idx_version = idx_version;
  seg->data = std::make_shared<SegmentData>(id, dpath, dfd);
  seg->idx_fd = ::open(ipath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (seg->idx_fd < 0) {
    Status st = Status::error(ipath + ": create: " + std::strerror(errno));
    ::unlink(dpath.c_str());
    return st;
  }
  uint8_t h[kSegmentHeaderSize];
  make_header(h, kDataMagic, kDataVersion);
  Status st = pwrite_all(dfd, dpath, h, sizeof h, 0);
  if (st) {
    make_header(h, kIndexMagic, idx_version);
    st = pwrite_all(seg->idx_fd, ipath, h, sizeof h, 0);
  }
  if (st) st = fdatasync_file(dfd, dpath);
  if (st) st = fdatasync_file(seg->idx_fd, ipath);
  if (st) st = fsync_dir(dir_);
  if (!st) {
    ::unlink(dpath.c_str());
    ::unlink(ipath.c_str());
    return st;
  }
  seg->dat_size = seg->idx_size = kSegmentHeaderSize;
  segments_.push_back(std::move(seg));
  return Status::ok();
}

Expected<std::vector<ChunkLocation>> ChunkStore::write(const std::vector<PendingChunk>& batch) {
  std::vector<ChunkLocation> locs;
  if (batch.empty()) return locs;
  if (options_.read_only) return Status::error(dir_ + ": opened read-only");
  int64_t bmin = std::numeric_limits<int64_t>::max(), bmax = std::numeric_limits<int64_t>::min();
  for (const auto& c : batch) {
    if (!c.bytes || c.bytes->empty()) return Status::error("chunk store: empty chunk in batch");
    bmin = std::min(bmin, c.meta.min_t);
    bmax = std::max(bmax, c.meta.max_t);
  }
  // What gets written: one unit (record) per chunk, or per group of a
  // series' consecutive chunks (docs/format/chunks.md "Groups").
  struct Unit {
    size_t first = 0, count = 1;
    std::vector<uint8_t> group;        // the group chunk; empty for a single chunk
    std::vector<size_t> part_offsets;  // of each chunk inside the group
    IndexRecord rec;
  };
  const size_t group_max = std::min(options_.group_max_samples, kMaxChunkSamples);
  auto groupable = [](const PendingChunk& c) { return (*c.bytes)[0] != static_cast<uint8_t>(Encoding::kGroup); };
  std::vector<Unit> units;
  uint64_t data_bytes = 0;
  bool all_fit_v2 = true;
  for (size_t i = 0; i < batch.size();) {
    Unit u;
    u.first = i;
    size_t samples = batch[i].meta.num_samples;
    size_t j = i + 1;
    while (groupable(batch[i]) && j < batch.size() && j - i < kMaxGroupParts &&
           batch[j].meta.ref == batch[i].meta.ref && batch[j].meta.min_t > batch[j - 1].meta.max_t &&
           samples + batch[j].meta.num_samples <= group_max && groupable(batch[j])) {
      samples += batch[j].meta.num_samples;
      ++j;
    }
    u.count = j - i;
    u.rec.ref = batch[i].meta.ref;
    u.rec.min_t = batch[i].meta.min_t;
    u.rec.max_t = batch[j - 1].meta.max_t;
    u.rec.n = static_cast<uint16_t>(samples);
    if (u.count > 1) {
      std::vector<std::span<const uint8_t>> parts;
      for (size_t k = i; k < j; ++k) parts.emplace_back(*batch[k].bytes);
      auto g = group_chunks(parts, &u.part_offsets);
      if (!g) return g.status();
      u.group = std::move(*g);
    }
    std::span<const uint8_t> b =
        u.count > 1 ? std::span<const uint8_t>(u.group) : std::span<const uint8_t>(*batch[i].bytes);
    u.rec.length = static_cast<uint32_t>(std::min<size_t>(b.size(), std::numeric_limits<uint32_t>::max()));
    u.rec.crc = crc32_of(b);
    data_bytes += b.size();
    all_fit_v2 = all_fit_v2 && fits_v2(u.rec);
    units.push_back(std::move(u));
    i = j;
  }
  if (data_bytes > std::numeric_limits<uint32_t>::max() / 2)
    return Status::error("chunk store: batch too large (" + std::to_string(data_bytes) + " bytes)");
  const uint8_t want_version = options_.compact_index && all_fit_v2 ? 2 : 1;
  std::lock_guard lock(mu_);
  Segment* seg = segments_.empty() ? nullptr : segments_.back().get();
  bool roll = seg == nullptr || seg->idx_fd < 0;
  if (seg != nullptr && seg->chunks > 0) {
    roll = seg->dat_size + data_bytes > options_.segment_bytes ||
           std::max(seg->max_t, bmax) - std::min(seg->min_t, bmin) > options_.segment_span_ms;
  }
  // A version-1 segment takes any record; a version-2 one only those that fit.
  if (seg != nullptr && !roll && seg->idx_version == 2 && want_version == 1) roll = true;
  uint64_t idx_bytes_max = units.size() * kIndexRecordSizeV1;
  // Free space for the batch plus a new segment's headers, above the reserve.
  auto free = options_.free_space(dir_);
  if (!free) return free.status();
  uint64_t need = data_bytes + idx_bytes_max + 2 * kSegmentHeaderSize + options_.min_free_bytes;
  if (*free < need) {
    return Status::error("disk almost full: " + std::to_string(*free) + " bytes free on " + dir_ + ", need " +
                         std::to_string(data_bytes + idx_bytes_max) + " for " + std::to_string(batch.size()) +
                         " chunks plus the reserve of " + std::to_string(options_.min_free_bytes) +
                         " (--storage.min-free-space)");
  }
  if (roll) {
    uint32_t id = std::max(next_id_, seg == nullptr ? 1u : seg->id + 1);
    if (Status st = start_segment_locked(id, want_version); !st) return st;
    next_id_ = id + 1;
    if (seg != nullptr && seg->idx_fd >= 0) {
      ::close(seg->idx_fd);
      seg->idx_fd = -1;
    }
    seg = segments_.back().get();
  }
  if (seg->dat_size + data_bytes > std::numeric_limits<uint32_t>::max())
    return Status::error(seg->data->path() + ": segment would exceed 4 GiB");
  const size_t rsize = record_size(seg->idx_version);
  uint64_t idx_bytes = units.size() * rsize;
  std::vector<uint8_t> data;
  data.reserve(data_bytes);
  std::vector<uint8_t> idx(idx_bytes);
  locs.resize(batch.size());
  uint64_t off = seg->dat_size;
  for (size_t ui = 0; ui < units.size(); ++ui) {
    Unit& u = units[ui];
    u.rec.offset = static_cast<uint32_t>(off);
    if (u.count == 1) {
      const auto& b = *batch[u.first].bytes;
      locs[u.first] = {seg->data, u.rec.offset, u.rec.length, u.rec.crc};
      data.insert(data.end(), b.begin(), b.end());
    } else {
      for (size_t k = 0; k < u.count; ++k) {
        const auto& b = *batch[u.first + k].bytes;
        locs[u.first + k] = {seg->data, static_cast<uint32_t>(off + u.part_offsets[k]), static_cast<uint32_t>(b.size()),
                             crc32_of(b)};
      }
      data.insert(data.end(), u.group.begin(), u.group.end());
    }
    put_record(seg->idx_version, idx.data() + ui * rsize, u.rec);
    off += u.rec.length;
  }
  const std::string& dpath = seg->data->path();
  std::string ipath = segment_index_path(dir_, seg->id);
  int dfd = ::open(dpath.c_str(), O_WRONLY | O_CLOEXEC);
  if (dfd < 0) return Status::error(dpath + ": open for writing: " + std::strerror(errno));
  auto undo_data = [&] { (void)truncate_file(dfd, dpath, seg->dat_size); };
  Status st = pwrite_all(dfd, dpath, data.data(), data.size(), seg->dat_size);
  if (st) st = fdatasync_file(dfd, dpath);
  if (!st) {
    undo_data();
    ::close(dfd);
    return st;
  }
  st = pwrite_all(seg->idx_fd, ipath, idx.data(), idx.size(), seg->idx_size);
  if (st) st = fdatasync_file(seg->idx_fd, ipath);
  if (!st) {
    (void)truncate_file(seg->idx_fd, ipath, seg->idx_size);
    undo_data();
    ::close(dfd);
    return st;
  }
  ::close(dfd);
  seg->dat_size += data_bytes;
  seg->idx_size += idx_bytes;
  seg->chunks += units.size();
  seg->min_t = std::min(seg->min_t, bmin);
  seg->max_t = std::max(seg->max_t, bmax);
  return locs;
}

Status ChunkStore::remove_segment(uint32_t id) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(segments_.begin(), segments_.end(), [id](const auto& s) { return s->id == id; });
  if (it == segments_.end()) return Status::error("chunk store: no segment " + id_name(id));
  if (it + 1 == segments_.end()) return Status::error("chunk store: segment " + id_name(id) + " is active");
  std::string dpath = segment_data_path(dir_, id), ipath = segment_index_path(dir_, id);
  // Index first: a crash in between leaves a data file without index, which open() ignores... and reports.
  if (::unlink(ipath.c_str()) != 0 && errno != ENOENT)
    return Status::error(ipath + ": unlink: " + std::strerror(errno));
  if (::unlink(dpath.c_str()) != 0 && errno != ENOENT)
    return Status::error(dpath + ": unlink: " + std::strerror(errno));
  segments_.erase(it);
  return fsync_dir(dir_);
}

std::vector<SegmentInfo> ChunkStore::segments() const {
  std::lock_guard lock(mu_);
  std::vector<SegmentInfo> out;
  for (const auto& s : segments_) {
    SegmentInfo i;
    i.id = s->id;
    if (s->chunks > 0) {
      i.min_t = s->min_t;
      i.max_t = s->max_t;
    }
    i.bytes = s->dat_size + s->idx_size;
    i.chunks = s->chunks;
    out.push_back(i);
  }
  return out;
}

uint64_t ChunkStore::disk_bytes() const {
  uint64_t b = 0;
  for (const auto& s : segments()) b += s.bytes;
  return b;
}

uint32_t ChunkStore::active_segment() const {
  std::lock_guard lock(mu_);
  return segments_.empty() ? 0 : segments_.back()->id;
}

}  // namespace llmon::tsdb
