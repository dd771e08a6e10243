#include "logwatch/file_tailer.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "base/unique_fd.h"
#include "logwatch/line_assembler.h"

namespace llmon::logwatch {

namespace {

constexpr size_t kChunk = 1 << 20;

std::string dir_name(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "app.log.1", "app.log.2.gz", "app.log-20261202": a rotated generation's
// suffix after the base name.
bool rotation_suffix(std::string_view rest) {
  if (rest.size() < 2 || (rest[0] != '.' && rest[0] != '-')) return false;
  if (ends_with(rest, ".gz")) rest.remove_suffix(3);
  if (rest.size() < 2) return false;
  if (rest[0] == '.') {
    return std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  return std::all_of(rest.begin() + 1, rest.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == 'T' || c == 'Z';
  });
}

bool looks_rotated(const std::string& path) {
  // a.log.1 is rotated when its name minus the suffix is a name of its own.
  const std::string base = base_name(path);
  for (size_t i = 1; i < base.size(); ++i) {
    if ((base[i] == '.' || base[i] == '-') && rotation_suffix(std::string_view(base).substr(i))) return true;
  }
  return false;
}

bool has_glob_chars(const std::string& p) {
  return p.find_first_of("*?[") != std::string::npos;
}

Status errno_status(const std::string& what, const std::string& path) {
  return Status::error(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

// One open file and what has been read of it.
struct FileTailer::Follow {
  Follow(std::string p, size_t max_line, uint64_t offset) : path(std::move(p)), lines(max_line, offset) {}
  std::string path;  // the tracked path
  base::UniqueFd fd;
  struct stat st {};  // as of the last poll
  LineAssembler lines;
  std::string head;  // the file's first bytes, while fewer than kFingerprintBytes are known
  uint32_t head_len = 0;
  uint32_t head_crc = 0;
  std::string window;  // the bytes just before fed_offset (for the tail checksum)
  int64_t drain_until_ms = 0;

  void remember(std::string_view bytes, uint64_t at) {
    if (at < kFingerprintBytes && head.size() == at) {
      head.append(bytes.substr(0, std::min<size_t>(bytes.size(), kFingerprintBytes - at)));
      head_len = static_cast<uint32_t>(head.size());
      head_crc = static_cast<uint32_t>(::crc32(0L, reinterpret_cast<const Bytef*>(head.data()), head_len));
    }
    const size_t keep = kFingerprintBytes + 64 * 1024;
    window.append(bytes);
    if (window.size() > 2 * keep) window.erase(0, window.size() - keep);
  }

  // Takes the head checksum from c and reads back the bytes the tail
  // checksum of a later cursor needs (the file is at c.offset).
  void resume_from(const FileCursor& c) {
    head_len = c.head_len;
    head_crc = c.head_crc;
    head.clear();
    if (c.head_len < kFingerprintBytes) {
      head.resize(c.head_len);
      if (::pread(fd.get(), head.data(), c.head_len, 0) != static_cast<ssize_t>(c.head_len)) head.clear();
    }
    std::string tail(c.tail_len, '\0');
    if (::pread(fd.get(), tail.data(), tail.size(), static_cast<off_t>(c.offset - c.tail_len)) ==
        static_cast<ssize_t>(tail.size()))
      window = std::move(tail);
  }

  // The cursor at the committed offset, checksums from the bytes read.
  FileCursor cursor(int64_t now_ms) const {
    FileCursor c;
    c.path = path;
    c.dev = static_cast<uint64_t>(st.st_dev);
    c.ino = static_cast<uint64_t>(st.st_ino);
    c.offset = lines.committed_offset();
    c.head_len = head_len;
    c.head_crc = head_crc;
    c.saved_ms = now_ms;
    c.mtime_ns = mtime_ns(st);
    c.tail_len = static_cast<uint32_t>(std::min<uint64_t>(c.offset, kFingerprintBytes));
    const uint64_t back = lines.fed_offset() - c.offset;  // the partial line's bytes
    if (back + c.tail_len <= window.size()) {
      const char* end = window.data() + window.size() - back;
      c.tail_crc = static_cast<uint32_t>(
          ::crc32(0L, reinterpret_cast<const Bytef*>(end - c.tail_len), static_cast<uInt>(c.tail_len)));
    } else {
      auto crc = crc_at(fd.get(), c.offset - c.tail_len, c.tail_len);  // a very long cut line
      c.tail_crc = crc ? *crc : 0;
    }
    return c;
  }
};

struct FileTailer::Candidate {
  std::string name;
  base::UniqueFd fd;
  struct stat st {};
  bool gz = false;
};

FileTailer::FileTailer(TailerOptions options, const base::Clock& clock) : opt_(std::move(options)), clock_(clock) {}
FileTailer::~FileTailer() = default;

void FileTailer::restore(std::vector<FileCursor> cursors) {
  pending_restore_ = std::move(cursors);
  for (const FileCursor& c : pending_restore_) {
    restored_saved_ms_ = std::max(restored_saved_ms_, c.saved_ms);
    for (const GenerationId& g : c.done) finished_.emplace_back(c.path, g);
  }
}

void FileTailer::note_error(const Status& s) {
  ++stats_.read_errors;
  if (first_error_.is_ok()) first_error_ = s;
}

Status FileTailer::open_follow(const std::string& path, bool at_end, std::unique_ptr<Follow>& out) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return errno_status("open", path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_status("fstat", path);
  if (!S_ISREG(st.st_mode)) return Status::error(path + ": not a regular file");
  uint64_t start = 0;
  if (at_end && st.st_size > 0) {
    // Start after the last complete line.
    const auto size = static_cast<uint64_t>(st.st_size);
    const uint64_t from = size > 65536 ? size - 65536 : 0;
    std::string buf(size - from, '\0');
    ssize_t n = ::pread(fd.get(), buf.data(), buf.size(), static_cast<off_t>(from));
    if (n > 0) {
      buf.resize(static_cast<size_t>(n));
      size_t nl = buf.rfind('\n');
      start = nl == std::string::npos ? from : from + nl + 1;
    }
  }
  auto f = std::make_unique<Follow>(path, opt_.max_line, start);
  f->st = st;
  f->fd = std::move(fd);
  if (start > 0) {
    FileCursor c;
    c.offset = start;
    if (fingerprint(f->fd.get(), static_cast<uint64_t>(st.st_size), c)) f->resume_from(c);
  }
  out = std::move(f);
  return Status::ok();
}

void FileTailer::read_to_end(Follow& f, const LineSink& sink, bool all) {
  std::string buf(kChunk, '\0');
  uint64_t budget = all ? UINT64_MAX : opt_.max_bytes_per_poll;
  auto emit = [&](std::string_view line, uint64_t) {
    ++stats_.lines;
    stats_.bytes += line.size() + 1;
    sink(f.path, line);
  };
  const uint64_t truncated_before = f.lines.truncated();
  while (budget > 0) {
    const uint64_t at = f.lines.fed_offset();
    ssize_t n = ::pread(f.fd.get(), buf.data(), buf.size(), static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      note_error(errno_status("read", f.path));
      break;
    }
    if (n == 0) break;
    std::string_view chunk(buf.data(), static_cast<size_t>(n));
    f.remember(chunk, at);
    f.lines.feed(chunk, emit);
    budget -= std::min<uint64_t>(budget, static_cast<uint64_t>(n));
  }
  stats_.truncated_lines += f.lines.truncated() - truncated_before;
}

void FileTailer::read_candidate(const std::string& path, Candidate& cand, uint64_t from, const LineSink& sink) {
  auto emit = [&](std::string_view line, uint64_t) {
    ++stats_.lines;
    stats_.bytes += line.size() + 1;
    sink(path, line);
  };
  LineAssembler lines(opt_.max_line, from);
  std::string buf(kChunk, '\0');
  if (cand.gz) {
    gzFile gz = ::gzdopen(::dup(cand.fd.get()), "rb");
    if (gz == nullptr) {
      note_error(Status::error("gzip " + cand.name + ": cannot open"));
      return;
    }
    int n = 0;
    while ((n = ::gzread(gz, buf.data(), static_cast<unsigned>(buf.size()))) > 0)
      lines.feed(std::string_view(buf.data(), static_cast<size_t>(n)), emit);
    if (n < 0) note_error(Status::error("gzip " + cand.name + ": corrupt data"));
    ::gzclose(gz);
  } else {
    uint64_t at = from;
    for (;;) {
      ssize_t n = ::pread(cand.fd.get(), buf.data(), buf.size(), static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) note_error(errno_status("read", cand.name));
      if (n <= 0) break;
      lines.feed(std::string_view(buf.data(), static_cast<size_t>(n)), emit);
      at += static_cast<uint64_t>(n);
    }
  }
  lines.flush(emit);
  stats_.truncated_lines += lines.truncated();
  struct stat st {};
  if (::fstat(cand.fd.get(), &st) == 0) finish(path, st);
}

namespace {

GenerationId generation_id(const struct stat& st) {
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
          mtime_ns(st)};
}

}  // namespace

void FileTailer::finish(const std::string& path, const struct stat& st) {
  if (finished(st)) return;
  finished_.emplace_back(path, generation_id(st));
  if (finished_.size() > 256) finished_.erase(finished_.begin());
}

bool FileTailer::finished(const struct stat& st) const {
  const GenerationId id = generation_id(st);
  return std::any_of(finished_.begin(), finished_.end(), [&](const auto& f) { return f.second == id; });
}

bool FileTailer::claimed(uint64_t dev, uint64_t ino) const {
  auto same = [&](const std::unique_ptr<Follow>& f) {
    return static_cast<uint64_t>(f->st.st_dev) == dev && static_cast<uint64_t>(f->st.st_ino) == ino;
  };
  if (std::any_of(draining_.begin(), draining_.end(), same)) return true;
  return std::any_of(follows_.begin(), follows_.end(), [&](const auto& kv) { return same(kv.second); });
}

std::vector<FileTailer::Candidate> FileTailer::generations(const std::string& path, uint64_t exclude_dev,
                                                           uint64_t exclude_ino) const {
  std::vector<Candidate> out;
  const std::string dir = dir_name(path);
  const std::string base = base_name(path);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name(e->d_name);
    if (name.size() <= base.size() || name.substr(0, base.size()) != base) continue;
    if (!rotation_suffix(name.substr(base.size()))) continue;
    Candidate c;
    c.gz = ends_with(name, ".gz");
    if (c.gz && !opt_.read_gz) continue;
    c.name = (dir == "/" ? "" : dir) + "/" + std::string(name);
    c.fd.reset(::open(c.name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!c.fd.valid() || ::fstat(c.fd.get(), &c.st) != 0 || !S_ISREG(c.st.st_mode)) continue;
    const auto dev = static_cast<uint64_t>(c.st.st_dev);
    const auto ino = static_cast<uint64_t>(c.st.st_ino);
    if ((dev == exclude_dev && ino == exclude_ino) || claimed(dev, ino) || finished(c.st)) continue;
    out.push_back(std::move(c));
  }
  ::closedir(d);
  // Oldest first; of equal times the higher generation number (older) first.
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (mtime_ns(a.st) != mtime_ns(b.st)) return mtime_ns(a.st) < mtime_ns(b.st);
    return a.name > b.name;
  });
  return out;
}

namespace {

// True when cand is (the start of) a copy of the live file: copytruncate has
// copied it and not yet truncated. Its lines are the live file's, read there.
bool copy_of_live(int cand_fd, const struct stat& cand, int live_fd) {
  struct stat live {};
  if (live_fd < 0 || ::fstat(live_fd, &live) != 0) return false;
  const auto size = static_cast<uint64_t>(cand.st_size);
  if (size == 0 || size > static_cast<uint64_t>(live.st_size)) return false;
  const auto n = static_cast<uint32_t>(std::min<uint64_t>(size, kFingerprintBytes));
  auto a = crc_at(cand_fd, 0, n), b = crc_at(live_fd, 0, n);
  if (!a || !b || *a != *b) return false;
  a = crc_at(cand_fd, size - n, n);
  b = crc_at(live_fd, size - n, n);
  return a && b && *a == *b;
}

}  // namespace

void FileTailer::read_newer(const std::string& path, std::vector<Candidate>& cands, size_t skip, int64_t min_mtime_ns,
                            int live_fd, const LineSink& sink) {
  for (size_t i = 0; i < cands.size(); ++i) {
    if (i == skip || mtime_ns(cands[i].st) < min_mtime_ns) continue;
    if (!cands[i].gz && copy_of_live(cands[i].fd.get(), cands[i].st, live_fd)) continue;
    read_candidate(path, cands[i], 0, sink);
  }
}

void FileTailer::recover(const FileCursor& c, const LineSink& sink) {
  base::UniqueFd fd(::open(c.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  const bool exists = fd.valid() && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode);
  if (exists && !c.draining && matches(fd.get(), st, c, false)) {
    auto f = std::make_unique<Follow>(c.path, opt_.max_line, c.offset);
    // As the file was when the cursor was taken: the first poll then sees
    // what changed since (copies made while we were down among it).
    f->st = st;
    f->st.st_size = static_cast<off_t>(c.offset);
    f->st.st_mtim.tv_sec = c.mtime_ns / 1000000000;
    f->st.st_mtim.tv_nsec = c.mtime_ns % 1000000000;
    f->fd = std::move(fd);
    f->resume_from(c);
    follows_[c.path] = std::move(f);
    return;
  }
  // The file at the path is not the cursor's at its position: find where the
  // cursor's bytes went (renamed, or copied before a truncation).
  auto cands =
      generations(c.path, exists ? static_cast<uint64_t>(st.st_dev) : 0, exists ? static_cast<uint64_t>(st.st_ino) : 0);
  if (exists && c.draining && matches(fd.get(), st, c, false)) {
    Candidate self;
    self.name = c.path;
    self.fd = std::move(fd);
    self.st = st;
    read_candidate(c.path, self, c.offset, sink);
    return;
  }
  size_t ours = cands.size();
  for (bool ignore_inode : {false, true}) {
    for (size_t i = 0; i < cands.size() && ours == cands.size(); ++i)
      if (!cands[i].gz && matches(cands[i].fd.get(), cands[i].st, c, ignore_inode)) ours = i;
    if (ours != cands.size() || c.draining) break;
  }
  if (ours != cands.size()) {
    ++stats_.rotations;
    read_candidate(c.path, cands[ours], c.offset, sink);
    if (c.draining) return;
    read_newer(c.path, cands, ours, mtime_ns(cands[ours].st), exists ? fd.get() : -1, sink);
  } else if (!c.draining) {
    read_newer(c.path, cands, cands.size(), c.mtime_ns, exists ? fd.get() : -1, sink);
  }
  // The file now at the path is new to us: from its start (discover opens it).
}

void FileTailer::handle_rotation(Follow& f, const LineSink& sink) {
  ++stats_.rotations;
  const int64_t seen_ns = mtime_ns(f.st);  // as of the last poll, before the rotation
  read_to_end(f, sink, true);
  struct stat st {};
  if (::fstat(f.fd.get(), &st) == 0) f.st = st;
  auto cands = generations(f.path, 0, 0);  // ours is excluded: it is claimed
  read_newer(f.path, cands, cands.size(), seen_ns, -1, sink);
  f.drain_until_ms = clock_.now_ms() + opt_.rotated_grace_ms;
}

void FileTailer::poll_follow(Follow& f, const LineSink& sink) {
  struct stat fst {};
  if (::fstat(f.fd.get(), &fst) != 0) {
    note_error(errno_status("fstat", f.path));
    return;
  }
  struct stat pst {};
  const bool same = ::stat(f.path.c_str(), &pst) == 0 && pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino;
  if (!same) {
    handle_rotation(f, sink);
    return;
  }
  const bool changed = fst.st_size != f.st.st_size || mtime_ns(fst) != mtime_ns(f.st);
  const bool shrunk = static_cast<uint64_t>(fst.st_size) < f.lines.fed_offset();
  if (changed || shrunk) {
    FileCursor c = f.cursor(clock_.now_ms());
    const bool truncated = shrunk || (c.offset > 0 && !matches(f.fd.get(), fst, c, false));
    // Nothing read yet: a copytruncate may have taken lines we never saw.
    const bool fresh = c.offset == 0 && changed;
    if (truncated || fresh) {
      auto cands = generations(f.path, static_cast<uint64_t>(fst.st_dev), static_cast<uint64_t>(fst.st_ino));
      size_t ours = cands.size();
      for (size_t i = 0; c.offset > 0 && i < cands.size() && ours == cands.size(); ++i)
        if (!cands[i].gz && matches(cands[i].fd.get(), cands[i].st, c, true)) ours = i;
      if (ours != cands.size()) {
        read_candidate(f.path, cands[ours], c.offset, sink);
        read_newer(f.path, cands, ours, mtime_ns(cands[ours].st), f.fd.get(), sink);
      } else {
        // Copies made since the last poll (none when the file only grew).
        read_newer(f.path, cands, cands.size(), mtime_ns(f.st), f.fd.get(), sink);
      }
      if (truncated) {
        ++stats_.rotations;
        f.lines.reset(0);
        f.head.clear();
        f.head_len = 0;
        f.head_crc = 0;
        f.window.clear();
      }
    }
  }
  f.st = fst;
  read_to_end(f, sink, false);
}

namespace {

// Whether the file's birth time (statx; not every filesystem keeps one) is
// at or after `ms`. False when unknown, or without a threshold.
bool born_after(const std::string& path, int64_t ms) {
  if (ms <= 0) return false;
  struct statx stx {};
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_BTIME, &stx) != 0 || !(stx.stx_mask & STATX_BTIME)) return false;
  const int64_t born_ms = static_cast<int64_t>(stx.stx_btime.tv_sec) * 1000 + stx.stx_btime.tv_nsec / 1'000'000;
  return born_ms >= ms;
}

}  // namespace

void FileTailer::discover(const LineSink& sink) {
  std::set<std::string> present;
  for (const std::string& pattern : opt_.patterns) {
    if (!has_glob_chars(pattern)) {
      present.insert(pattern);
      continue;
    }
    glob_t g{};
    if (::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string p = g.gl_pathv[i];
        if (!looks_rotated(p)) present.insert(std::move(p));
      }
    }
    ::globfree(&g);
  }
  std::set<std::string> restored;
  if (first_poll_) {
    // Draining cursors first: they hold the older bytes of their path.
    std::stable_sort(pending_restore_.begin(), pending_restore_.end(),
                     [](const FileCursor& a, const FileCursor& b) { return a.draining && !b.draining; });
    for (const FileCursor& c : pending_restore_) {
      if (!present.count(c.path)) continue;
      recover(c, sink);
      restored.insert(c.path);
    }
    pending_restore_.clear();
  }
  for (const std::string& path : present) {
    if (follows_.count(path)) continue;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const bool at_end =
        first_poll_ && !opt_.from_beginning && !restored.count(path) && !born_after(path, restored_saved_ms_ - 5000);
    std::unique_ptr<Follow> f;
    Status s = open_follow(path, at_end, f);
    if (!s) {
      note_error(s);
      continue;
    }
    follows_[path] = std::move(f);
  }
}

Status FileTailer::poll(const LineSink& sink) {
  first_error_ = Status::ok();
  // Renamed files first: their bytes are older than their successors'.
  const int64_t now = clock_.now_ms();
  for (auto it = draining_.begin(); it != draining_.end();) {
    Follow& f = **it;
    read_to_end(f, sink, true);
    if (now >= f.drain_until_ms) {
      f.lines.flush([&](std::string_view line, uint64_t) {
        ++stats_.lines;
        sink(f.path, line);
      });
      struct stat st {};
      if (::fstat(f.fd.get(), &st) == 0) finish(f.path, st);
      it = draining_.erase(it);
    } else {
      ++it;
    }
  }
  // A follow whose file was renamed away moves to draining_, freeing its
  // path for the successor discover() opens.
  auto retire_rotated = [this] {
    for (auto it = follows_.begin(); it != follows_.end();) {
      if (it->second->drain_until_ms != 0) {
        draining_.push_back(std::move(it->second));
        it = follows_.erase(it);
      } else {
        ++it;
      }
    }
  };
  std::set<const Follow*> polled;
  for (auto& [path, f] : follows_) {
    poll_follow(*f, sink);
    polled.insert(f.get());
  }
  retire_rotated();
  discover(sink);
  // New and restored files (and the successors of rotated ones) are read in
  // the same poll.
  for (auto& [path, f] : follows_)
    if (!polled.count(f.get())) poll_follow(*f, sink);
  retire_rotated();
  first_poll_ = false;
  stats_.files = follows_.size();
  return first_error_;
}

std::vector<FileCursor> FileTailer::cursors() const {
  if (first_poll_) return pending_restore_;  // nothing read yet: the positions restored
  std::vector<FileCursor> out;
  const int64_t now = clock_.now_ms();
  for (const auto& f : draining_) {
    out.push_back(f->cursor(now));
    out.back().draining = true;
  }
  for (const auto& [path, f] : follows_) out.push_back(f->cursor(now));
  for (FileCursor& c : out) {
    for (auto it = finished_.rbegin(); it != finished_.rend() && c.done.size() < 8; ++it)
      if (it->first == c.path) c.done.push_back(it->second);
  }
  return out;
}

std::vector<std::string> FileTailer::directories() const {
  std::set<std::string> dirs;
  for (const std::string& p : opt_.patterns) dirs.insert(dir_name(p));
  return {dirs.begin(), dirs.end()};
}

}  // namespace llmon::logwatch
