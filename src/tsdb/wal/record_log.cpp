// Segment/page/fragment framing of the record logs: docs/format/wal.md.
#include "tsdb/wal/record_log.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <utility>

#include "base/unique_fd.h"
#include "tsdb/file_util.h"

namespace llmon::tsdb::wal {
namespace {

enum FragmentType : uint8_t { kPadding = 0, kFull = 1, kFirst = 2, kMiddle = 3, kLast = 4 };
constexpr uint32_t kMaxSegment = 99'999'999;

std::string errno_text(int err) {
  return std::strerror(err);
}

Status io_error(const std::string& what, const std::string& file, int err) {
  return Status::error(what + " " + file + ": " + errno_text(err));
}

// CRC of a fragment: over type and length (header bytes 0..2), then the payload.
uint32_t fragment_crc(const uint8_t* header, const uint8_t* payload, size_t len) {
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, header, 3);
  c = crc32(c, payload, static_cast<uInt>(len));
  return static_cast<uint32_t>(c);
}

void put_fragment(std::string& out, FragmentType type, std::string_view payload) {
  uint8_t h[kFragmentHeaderSize];
  h[0] = type;
  h[1] = static_cast<uint8_t>(payload.size() >> 8);
  h[2] = static_cast<uint8_t>(payload.size());
  const uint32_t c = fragment_crc(h, reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  for (int i = 0; i < 4; ++i) h[3 + i] = static_cast<uint8_t>(c >> (24 - 8 * i));
  out.append(reinterpret_cast<const char*>(h), sizeof h);
  out.append(payload);
}

// Appends the fragments (and padding) of `record` written at segment offset
// `pos`, advancing it. Rules 1-4 of docs/format/wal.md "Fragments".
void frame_record(std::string_view record, uint64_t& pos, std::string& out) {
  bool first = true;
  for (;;) {
    const size_t room = kPageSize - pos % kPageSize;
    if (room < kFragmentHeaderSize || (room == kFragmentHeaderSize && !record.empty())) {
      out.append(room, '\0');
      pos += room;
      continue;
    }
    const size_t n = std::min(record.size(), room - kFragmentHeaderSize);
    const bool last = n == record.size();
    put_fragment(out, first ? (last ? kFull : kFirst) : (last ? kLast : kMiddle), record.substr(0, n));
    pos += kFragmentHeaderSize + n;
    record.remove_prefix(n);
    first = false;
    if (last) return;
  }
}

bool all_zero(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

// Reads one segment file page by page and delivers its records, reporting
// damaged stretches (docs/format/wal.md, "Reading and resynchronisation").
// Used by read_log() and by LogWriter::open()'s tail repair.
class SegmentScanner {
 public:
  using OnRecord = std::function<Status(std::string_view record, uint64_t start, uint64_t end)>;
  using OnDamage = std::function<void(const Corruption&)>;

  SegmentScanner(std::string file, bool last_segment, const OnRecord& on_record, const OnDamage& on_damage)
      : file_(std::move(file)), last_(last_segment), on_record_(on_record), on_damage_(on_damage) {}

  // From the page holding `from` on (0: the whole segment).
  Status scan(int fd, uint64_t size, uint64_t from = 0) {
    page_.resize(kPageSize);
    for (uint64_t page_off = from - from % kPageSize; page_off < size; page_off += kPageSize) {
      const size_t len = static_cast<size_t>(std::min<uint64_t>(kPageSize, size - page_off));
      if (Status s = pread_all(fd, file_, page_.data(), len, page_off); !s) return s;
      if (Status s = scan_page(page_off, len); !s) return s;
    }
    if (pending_) damage(rec_start_, "torn record at end of segment" + at(rec_start_));
    if (dmg_open_) {
      tail_detail_ = dmg_reason_;
      report(size, last_ ? "torn tail" : dmg_reason_);
    }
    return Status::ok();
  }

  // What was found in the damaged stretch at the end of the segment, if any.
  const std::string& tail_detail() const { return tail_detail_; }

 private:
  Status scan_page(uint64_t page_off, size_t len) {
    const char* p = page_.data();
    size_t pos = 0;
    while (pos < len) {
      const uint64_t off = page_off + pos;
      // Each failed check damages the rest of the page: resynchronise at the next one.
      if (kPageSize - pos < kFragmentHeaderSize || p[pos] == kPadding) {
        if (pending_) {
          damage(off, "padding inside a record" + at(off));
        } else if (!all_zero(p + pos, len - pos)) {
          damage(off, "non-zero padding" + at(off));
        }
        return Status::ok();
      }
      if (len - pos < kFragmentHeaderSize) {
        damage(off, "fragment header cut by the end of the file" + at(off));
        return Status::ok();
      }
      const auto* h = reinterpret_cast<const uint8_t*>(p + pos);
      const size_t flen = static_cast<size_t>(h[1]) << 8 | h[2];
      const uint32_t crc = static_cast<uint32_t>(h[3]) << 24 | static_cast<uint32_t>(h[4]) << 16 |
                           static_cast<uint32_t>(h[5]) << 8 | h[6];
      const size_t end = pos + kFragmentHeaderSize + flen;
      const uint8_t type = h[0];
      std::string bad;
      if (end > kPageSize) {
        bad = "fragment length " + std::to_string(flen) + " crosses the page end";
      } else if (end > len) {
        bad = "fragment cut by the end of the file";
      } else if (fragment_crc(h, h + kFragmentHeaderSize, flen) != crc) {
        bad = "crc mismatch";
      } else if (type > kLast) {
        bad = "unknown fragment type " + std::to_string(type);
      }
      if (!bad.empty()) {
        damage(off, bad + at(off));
        return Status::ok();
      }
      const std::string_view payload(p + pos + kFragmentHeaderSize, flen);
      const bool at_page_start = pos == 0, fills_page = end == kPageSize;
      pos = end;
      if (type == kFull || type == kFirst) {
        if (pending_) damage(rec_start_, "record without its last fragment" + at(rec_start_));
        if (type == kFirst && !fills_page) {
          damage(off, "first fragment does not end at the page end" + at(off));
          continue;
        }
        if (type == kFull) {
          if (Status s = deliver(payload, off, page_off + end); !s) return s;
          continue;
        }
        pending_ = true;
        rec_start_ = off;
        rec_.assign(payload);
        continue;
      }
      // MIDDLE or LAST.
      if (!pending_) {
        if (!dmg_open_) damage(off, "continuation fragment without a first fragment" + at(off));
        continue;  // left over from a dropped record: part of the same damage
      }
      if (!at_page_start || (type == kMiddle && !fills_page)) {
        damage(off, "misplaced continuation fragment" + at(off));
        continue;
      }
      rec_.append(payload);
      if (type == kLast) {
        pending_ = false;
        if (Status s = deliver(rec_, rec_start_, page_off + end); !s) return s;
      }
    }
    return Status::ok();
  }

  static std::string at(uint64_t off) { return " at offset " + std::to_string(off); }

  // Drops the record being assembled and opens (or extends) a damaged stretch
  // starting at that record or at `off`.
  void damage(uint64_t off, const std::string& reason) {
    const uint64_t start = pending_ ? std::min(rec_start_, off) : off;
    pending_ = false;
    rec_.clear();
    if (!dmg_open_) {
      dmg_open_ = true;
      dmg_offset_ = start;
      dmg_reason_ = reason;
    }
  }

  void report(uint64_t resume, const std::string& reason) {
    dmg_open_ = false;
    on_damage_(Corruption{file_, dmg_offset_, resume - dmg_offset_, reason});
  }

  Status deliver(std::string_view record, uint64_t start, uint64_t end) {
    if (dmg_open_) report(start, dmg_reason_);
    return on_record_(record, start, end);
  }

  std::string file_;
  bool last_;
  const OnRecord& on_record_;
  const OnDamage& on_damage_;
  std::string page_;
  std::string rec_;  // record being assembled from FIRST/MIDDLE fragments
  bool pending_ = false;
  uint64_t rec_start_ = 0;
  bool dmg_open_ = false;
  uint64_t dmg_offset_ = 0;
  std::string dmg_reason_;
  std::string tail_detail_;
};

Expected<uint64_t> file_size(int fd, const std::string& file) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error("stat", file, errno);
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace

// ---------------------------------------------------------------- segments

std::string segment_path(const std::string& dir, uint32_t segment) {
  char name[16];
  std::snprintf(name, sizeof name, "%08u", segment);
  return dir + "/" + name;
}

Expected<std::vector<uint32_t>> list_segments(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return io_error("list", dir, errno);
  std::vector<uint32_t> out;
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d);
    if (!e) break;
    std::string_view name(e->d_name);
    if (name.size() != 8 || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    out.push_back(static_cast<uint32_t>(std::stoul(std::string(name))));
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) return io_error("list", dir, err);
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------- reader

Expected<ReadStats> read_log(const std::string& dir, uint32_t from,
                             const std::function<Status(std::string_view record)>& on_record,
                             const std::function<void(const Corruption&)>& on_corruption) {
  auto segments = list_segments(dir);
  if (!segments) return segments.status();
  ReadStats stats;
  const SegmentScanner::OnDamage on_damage = [&](const Corruption& c) {
    ++stats.corruptions;
    on_corruption(c);
  };
  std::string file;
  const SegmentScanner::OnRecord deliver = [&](std::string_view record, uint64_t start, uint64_t) -> Status {
    ++stats.records;
    stats.bytes += record.size();
    Status s = on_record(record);
    return s ? s : s.with_context(file + ": record at offset " + std::to_string(start));
  };
  bool first = true;
  uint32_t prev = 0;
  for (size_t i = 0; i < segments->size(); ++i) {
    const uint32_t seg = (*segments)[i];
    if (seg < from) continue;
    if (!first && seg > prev + 1) {
      on_damage(Corruption{
          segment_path(dir, prev + 1), 0, 0,
          seg == prev + 2 ? "segment missing"
                          : "segments " + std::to_string(prev + 1) + " to " + std::to_string(seg - 1) + " missing"});
    }
    first = false;
    prev = seg;
    file = segment_path(dir, seg);
    base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return io_error("open", file, errno);
    auto size = file_size(fd.get(), file);
    if (!size) return size.status();
    SegmentScanner scanner(file, i + 1 == segments->size(), deliver, on_damage);
    if (Status s = scanner.scan(fd.get(), *size); !s) return s;
  }
  return stats;
}

Status read_segment_from(const std::string& dir, uint32_t segment, uint64_t from_offset, bool last_segment,
                         const std::function<Status(std::string_view, uint64_t, uint64_t)>& on_record,
                         const std::function<void(const Corruption&)>& on_corruption) {
  const std::string file = segment_path(dir, segment);
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return io_error("open", file, errno);
  auto size = file_size(fd.get(), file);
  if (!size) return size.status();
  // Fragments before from_offset in its page belong to records already read:
  // what the scanner reports about them is not damage.
  const SegmentScanner::OnDamage on_damage = [&](const Corruption& c) {
    if (c.offset >= from_offset) on_corruption(c);
  };
  const SegmentScanner::OnRecord deliver = [&](std::string_view record, uint64_t start, uint64_t end) -> Status {
    return start < from_offset ? Status::ok() : on_record(record, start, end);
  };
  SegmentScanner scanner(file, last_segment, deliver, on_damage);
  return scanner.scan(fd.get(), *size, from_offset);
}

// ---------------------------------------------------------------- writer

struct LogWriter::Impl {
  std::string dir;
  LogOptions options;
  uint32_t segment = 0;
  base::UniqueFd fd;
  std::string file;
  uint64_t size = 0;                     // end of the last whole record in the current segment
  bool fresh_page = false;               // the next fragment must start at a page boundary
  bool data_dirty = false;               // current segment written since the last sync
  bool dir_dirty = false;                // a segment created/removed since the last sync
  bool truncate_pending = false;         // a failed write's ftruncate failed: retry first
  std::vector<base::UniqueFd> unsynced;  // earlier segments written since the last sync
  std::map<uint32_t, uint64_t> sizes;
  uint64_t written = 0;
  std::string buf;

  Status create_segment(uint32_t seg) {
    if (seg > kMaxSegment)
      return Status::error("wal " + dir + ": segment number " + std::to_string(seg) + " too large");
    std::string path = segment_path(dir, seg);
    base::UniqueFd f(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (f.get() < 0) return io_error("create", path, errno);
    if (fd.get() >= 0 && data_dirty) unsynced.push_back(std::move(fd));
    fd = std::move(f);
    file = std::move(path);
    segment = seg;
    size = 0;
    fresh_page = false;
    data_dirty = false;
    truncate_pending = false;
    dir_dirty = true;
    sizes[seg] = 0;
    return Status::ok();
  }

  Status write_batch(const std::vector<std::string_view>& records) {
    if (records.empty()) return Status::ok();
    if (truncate_pending) {
      if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0) return io_error("truncate", file, errno);
      truncate_pending = false;
    }
    uint64_t pos = size;
    auto frame_all = [&] {
      buf.clear();
      pos = size;
      if (fresh_page && pos % kPageSize != 0) {
        buf.append(kPageSize - pos % kPageSize, '\0');
        pos += kPageSize - pos % kPageSize;
      }
      for (std::string_view r : records) frame_record(r, pos, buf);
    };
    frame_all();
    if (size > 0 && pos > options.segment_bytes) {
      if (Status s = create_segment(segment + 1); !s) return s;
      frame_all();
    }
    if (Status st = pwrite_all(fd.get(), file, buf.data(), buf.size(), size); !st) {
      if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0) truncate_pending = true;
      return st;
    }
    size = pos;
    sizes[segment] = size;
    fresh_page = false;
    data_dirty = true;
    written += buf.size();
    return Status::ok();
  }
};

Expected<std::unique_ptr<LogWriter>> LogWriter::open(const std::string& dir, LogOptions options,
                                                     std::string* repair_note) {
  if (repair_note) repair_note->clear();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error("wal: create " + dir + ": " + ec.message());
  auto segments = list_segments(dir);
  if (!segments) return segments.status();

  std::unique_ptr<LogWriter> w(new LogWriter());
  w->impl_ = std::make_unique<Impl>();
  Impl& m = *w->impl_;
  m.dir = dir;
  m.options = options;
  for (uint32_t seg : *segments) {
    struct stat st {};
    const std::string path = segment_path(dir, seg);
    if (::stat(path.c_str(), &st) != 0) return io_error("stat", path, errno);
    m.sizes[seg] = static_cast<uint64_t>(st.st_size);
  }
  if (segments->empty()) {
    if (Status s = m.create_segment(1); !s) return s;
    return w;
  }

  m.segment = segments->back();
  m.file = segment_path(dir, m.segment);
  m.fd = base::UniqueFd(::open(m.file.c_str(), O_RDWR | O_CLOEXEC));
  if (m.fd.get() < 0) return io_error("open", m.file, errno);
  auto size = file_size(m.fd.get(), m.file);
  if (!size) return size.status();

  // Tail repair: keep everything up to the end of the last valid record.
  uint64_t good_end = 0;
  const SegmentScanner::OnRecord on_record = [&](std::string_view, uint64_t, uint64_t end) {
    good_end = end;
    return Status::ok();
  };
  const SegmentScanner::OnDamage on_damage = [](const Corruption&) {};
  SegmentScanner scanner(m.file, true, on_record, on_damage);
  if (Status s = scanner.scan(m.fd.get(), *size); !s) return s;
  if (*size > good_end) {
    if (::ftruncate(m.fd.get(), static_cast<off_t>(good_end)) != 0) return io_error("truncate", m.file, errno);
    m.data_dirty = true;  // made durable by the next sync(), like an append
    if (repair_note) {
      *repair_note = m.file + ": dropped " + std::to_string(*size - good_end) + " bytes after offset " +
                     std::to_string(good_end) + " (" +
                     (scanner.tail_detail().empty() ? "zero padding" : scanner.tail_detail()) + ")";
    }
  }
  m.size = good_end;
  m.sizes[m.segment] = good_end;
  m.fresh_page = true;
  if (m.size >= options.segment_bytes) {
    if (Status s = m.create_segment(m.segment + 1); !s) return s;
  }
  return w;
}

LogWriter::~LogWriter() = default;

Status LogWriter::append(std::string_view record) {
  return impl_->write_batch({record});
}

Status LogWriter::append_all(const std::vector<std::string_view>& records) {
  return impl_->write_batch(records);
}

Status LogWriter::sync() {
  Impl& m = *impl_;
  while (!m.unsynced.empty()) {
    if (::fdatasync(m.unsynced.back().get()) != 0) return io_error("sync", m.dir + " (an earlier segment)", errno);
    m.unsynced.pop_back();
  }
  if (m.data_dirty) {
    if (Status st = fdatasync_file(m.fd.get(), m.file); !st) return st;
    m.data_dirty = false;
  }
  if (m.dir_dirty) {
    if (Status st = fsync_dir(m.dir); !st) return st;
    m.dir_dirty = false;
  }
  return Status::ok();
}

Expected<uint32_t> LogWriter::roll() {
  if (Status s = impl_->create_segment(impl_->segment + 1); !s) return s;
  return impl_->segment;
}

Status LogWriter::remove_before(uint32_t segment) {
  Impl& m = *impl_;
  const uint32_t limit = std::min(segment, m.segment);
  while (!m.sizes.empty() && m.sizes.begin()->first < limit) {
    const std::string path = segment_path(m.dir, m.sizes.begin()->first);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("remove", path, errno);
    m.sizes.erase(m.sizes.begin());
    m.dir_dirty = true;
  }
  return Status::ok();
}

uint32_t LogWriter::current_segment() const {
  return impl_->segment;
}

uint64_t LogWriter::bytes_written() const {
  return impl_->written;
}

uint64_t LogWriter::disk_bytes() const {
  uint64_t total = 0;
  for (const auto& [seg, bytes] : impl_->sizes) total += bytes;
  return total;
}

}  // namespace llmon::tsdb::wal
