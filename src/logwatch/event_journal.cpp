#include "logwatch/event_journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "logwatch/event_json.h"

namespace llmon::logwatch {

namespace {

constexpr std::string_view kCommitPrefix = "{\"commit\":";

Status errno_status(const std::string& what, const std::string& path) {
  return Status::error(what + " " + path + ": " + std::strerror(errno));
}

std::vector<std::string> segments(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n(e->d_name);
    if (n.size() == 33 && n.substr(0, 7) == "events-" && n.substr(27) == ".jsonl")
      out.push_back(dir + "/" + std::string(n));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string segment_name(const std::string& dir, uint64_t first_commit) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "events-%020llu.jsonl", static_cast<unsigned long long>(first_commit));
  return dir + "/" + buf;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

Status write_all(int fd, std::string_view bytes, const std::string& path) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return errno_status("write", path);
    off += static_cast<size_t>(n);
  }
  return Status::ok();
}

bool wanted(const Event& e, const EventQuery& q) {
  if (e.time_ms < q.start_ms || e.first_ms > q.end_ms) return false;
  if (!q.rule.empty() && e.rule != q.rule) return false;
  if (!q.source.empty() && e.source != q.source && ::fnmatch(q.source.c_str(), e.source.c_str(), 0) != 0) return false;
  return !q.min_severity || e.severity >= *q.min_severity;
}

}  // namespace

EventJournal::~EventJournal() = default;

Expected<std::unique_ptr<EventJournal>> EventJournal::open(JournalOptions options, const base::Clock& clock) {
  std::unique_ptr<EventJournal> j(new EventJournal(std::move(options), clock));
  if (::mkdir(j->opt_.dir.c_str(), 0755) != 0 && errno != EEXIST) return errno_status("mkdir", j->opt_.dir);
  Status s = j->recover();
  if (!s) return s;
  return j;
}

Status EventJournal::recover() {
  auto segs = segments(opt_.dir);
  // The newest segment with a complete commit holds the state; anything after
  // its last commit line (and newer segments without one) is a torn commit.
  while (!segs.empty()) {
    const std::string& path = segs.back();
    std::string data;
    if (!read_file(path, data)) return Status::error("read " + path + ": cannot open");
    size_t keep = 0;
    size_t pos = 0;
    std::string last;
    while (pos < data.size()) {
      size_t nl = data.find('\n', pos);
      if (nl == std::string::npos) break;
      std::string_view line(data.data() + pos, nl - pos);
      if (line.substr(0, kCommitPrefix.size()) == kCommitPrefix) {
        keep = nl + 1;
        last.assign(line);
      }
      pos = nl + 1;
    }
    if (keep < data.size()) {
      stats_.torn_bytes_cut += data.size() - keep;
      if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0) return errno_status("truncate", path);
    }
    if (last.empty()) {
      if (::unlink(path.c_str()) != 0) return errno_status("unlink", path);
      segs.pop_back();
      continue;
    }
    nlohmann::json c = nlohmann::json::parse(last, nullptr, false);
    if (c.is_discarded() || !c["commit"].is_number_unsigned() || !c["positions"].is_string())
      return Status::error(path + ": its last commit record is corrupt");
    commit_ = c["commit"].get<uint64_t>();
    max_id_ = c.value("max_id", uint64_t{0});
    positions_ = c["positions"].get<std::string>();
    segment_ = path;
    segment_size_ = keep;
    break;
  }
  for (const std::string& s : segments(opt_.dir)) {
    struct stat st {};
    if (::stat(s.c_str(), &st) == 0) stats_.bytes += static_cast<uint64_t>(st.st_size);
  }
  stats_.segments = segments(opt_.dir).size();
  if (segment_.empty()) return Status::ok();
  fd_.reset(::open(segment_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!fd_.valid()) return errno_status("open", segment_);
  return Status::ok();
}

Status EventJournal::open_segment(uint64_t first_commit) {
  const std::string path = segment_name(opt_.dir, first_commit);
  base::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd.valid()) return errno_status("open", path);
  int dfd = ::open(opt_.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  fd_ = std::move(fd);
  segment_ = path;
  segment_size_ = 0;
  ++stats_.segments;
  return Status::ok();
}

Status EventJournal::commit(const std::vector<Event>& events, std::string_view positions) {
  const uint64_t n = commit_ + 1;
  if (!fd_.valid() || segment_size_ >= opt_.segment_bytes) {
    Status s = open_segment(n);
    if (!s) {
      ++stats_.write_errors;
      return s;
    }
    enforce_retention();
  }
  std::string batch;
  uint64_t max_id = max_id_;
  for (const Event& e : events) {
    batch += encode_event(e);
    batch += '\n';
    max_id = std::max(max_id, e.id);
  }
  nlohmann::json c;
  c["commit"] = n;
  c["max_id"] = max_id;
  c["positions"] = std::string(positions);
  batch += c.dump();
  batch += '\n';
  Status s = write_all(fd_.get(), batch, segment_);
  if (s && ::fdatasync(fd_.get()) != 0) s = errno_status("fdatasync", segment_);
  if (!s) {
    // The partial batch stays in the file until the next open cuts it; no
    // later commit may follow it in this segment.
    ++stats_.write_errors;
    fd_.reset();
    segment_size_ = opt_.segment_bytes;
    return s;
  }
  commit_ = n;
  max_id_ = max_id;
  positions_.assign(positions);
  segment_size_ += batch.size();
  stats_.bytes += batch.size();
  ++stats_.commits;
  stats_.events += events.size();
  return Status::ok();
}

void EventJournal::enforce_retention() {
  auto segs = segments(opt_.dir);
  uint64_t total = 0;
  std::vector<std::pair<std::string, struct stat>> info;
  for (const std::string& s : segs) {
    struct stat st {};
    if (::stat(s.c_str(), &st) != 0) continue;
    total += static_cast<uint64_t>(st.st_size);
    info.emplace_back(s, st);
  }
  const int64_t cutoff_s = (clock_.now_ms() - opt_.retention_ms) / 1000;
  for (const auto& [path, st] : info) {
    if (path == segment_) break;
    const bool old = st.st_mtim.tv_sec < cutoff_s;
    if (!old && total <= opt_.max_bytes) break;
    if (::unlink(path.c_str()) == 0) {
      total -= static_cast<uint64_t>(st.st_size);
      ++stats_.removed_segments;
      --stats_.segments;
    }
  }
  stats_.bytes = total;
}

Expected<std::vector<Event>> EventJournal::query(const EventQuery& q) const {
  return query_events(opt_.dir, q);
}

Expected<std::vector<Event>> query_events(const std::string& dir, const EventQuery& q) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return Status::error("event journal " + dir + ": " + std::strerror(errno));
  std::map<uint64_t, Event> by_id;
  for (const std::string& path : segments(dir)) {
    std::ifstream f(path, std::ios::binary);
    std::string line;
    while (std::getline(f, line)) {
      if (f.eof()) break;  // a line still being written
      if (line.empty() || line.compare(0, kCommitPrefix.size(), kCommitPrefix) == 0) continue;
      auto e = decode_event(line);
      if (!e) continue;
      by_id[e->id] = std::move(*e);
    }
  }
  std::vector<Event> out;
  for (auto& [id, e] : by_id)
    if (wanted(e, q)) out.push_back(std::move(e));
  std::sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    return a.time_ms != b.time_ms ? a.time_ms > b.time_ms : a.id > b.id;
  });
  if (out.size() > q.limit) out.resize(q.limit);
  return out;
}

}  // namespace llmon::logwatch
