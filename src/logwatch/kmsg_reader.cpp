// The kmsg reader's two modes (docs/logwatch-kmsg.md): one record per read()
// on the device, records one per line (and their dictionary lines) in a file.
#include "logwatch/kmsg_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "base/file_reader.h"

namespace llmon::logwatch {
namespace {

constexpr size_t kFileChunkBytes = 64 * 1024;

// The size of the whole record at the start of data (its header line and the
// dictionary lines after it), or 0 while it is incomplete. A record at the
// very end of the data is whole: its dictionary lines, if any, must be
// written with it.
size_t whole_record_size(std::string_view data) {
  size_t nl = data.find('\n');
  if (nl == std::string_view::npos) return 0;
  size_t end = nl + 1;
  while (end < data.size() && data[end] == ' ') {
    nl = data.find('\n', end);
    if (nl == std::string_view::npos) return 0;
    end = nl + 1;
  }
  return end;
}

}  // namespace

KmsgReader::KmsgReader(std::string path, std::string boot_id, const base::Clock* clock)
    : path_(std::move(path)), boot_id_(std::move(boot_id)), clock_(clock ? clock : &system_clock_) {}

Expected<std::unique_ptr<KmsgReader>> KmsgReader::open(const std::string& path, std::string boot_id, KmsgCursor resume,
                                                       const base::Clock* clock) {
  std::unique_ptr<KmsgReader> r(new KmsgReader(path, std::move(boot_id), clock));
  if (resume.valid && resume.boot_id == r->boot_id_) {
    r->last_seq_ = resume.seq;
    r->have_seq_ = true;
  }
  if (Status s = r->reopen(); !s) return s;
  return r;
}

Status KmsgReader::reopen() {
  fd_.reset(::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd_.valid()) return fail("open", errno);
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) return fail("fstat", errno);
  if (S_ISCHR(st.st_mode)) {
    device_ = true;
    buf_.resize(kKmsgReadBufferBytes);
  } else if (S_ISREG(st.st_mode)) {
    device_ = false;
    buf_.clear();
  } else {
    fd_.reset();
    stats_.up = false;
    return Status::error(path_ + ": neither a character device (/dev/kmsg) nor a regular file of kmsg records");
  }
  pos_ = 0;
  file_read_ = 0;
  skipping_ = false;
  stats_.up = true;
  return Status::ok();
}

Status KmsgReader::fail(const char* what, int err) {
  fd_.reset();
  stats_.up = false;
  return Status::error(path_ + ": " + what + ": " + std::strerror(err));
}

Status KmsgReader::poll(std::vector<KmsgRecord>& out, size_t max_records) {
  if (!fd_.valid()) {
    if (Status s = reopen(); !s) return s;
  }
  Status s = device_ ? poll_device(out, max_records) : poll_file(out, max_records);
  if (!s) return s;
  stats_.up = true;
  stats_.last_read_ms = clock_->now_ms();
  return s;
}

bool KmsgReader::take(std::string_view raw, std::vector<KmsgRecord>& out) {
  Expected<KmsgRecord> rec = parse_kmsg_record(raw);
  if (!rec) {
    ++stats_.malformed;
    return false;
  }
  if (have_seq_ && rec->seq <= last_seq_) return false;  // handed out already (resume, reopen)
  if (have_seq_ && rec->seq > last_seq_ + 1) stats_.dropped += rec->seq - last_seq_ - 1;
  last_seq_ = rec->seq;
  have_seq_ = true;
  ++stats_.records;
  out.push_back(std::move(*rec));
  return true;
}

Status KmsgReader::poll_device(std::vector<KmsgRecord>& out, size_t max_records) {
  size_t taken = 0;
  while (taken < max_records) {
    ssize_t n = ::read(fd_.get(), buf_.data(), buf_.size());
    if (n > 0) {
      taken += take(std::string_view(buf_.data(), static_cast<size_t>(n)), out) ? 1 : 0;
      continue;
    }
    if (n == 0) break;  // not seen on /dev/kmsg; nothing more for now
    int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) break;
    if (err == EPIPE) {  // the ring overwrote records we had not read: the next read gives the oldest left
      ++stats_.overruns;
      continue;
    }
    return fail("read", err);
  }
  return Status::ok();
}

size_t KmsgReader::take_file_records(std::vector<KmsgRecord>& out, size_t max_records) {
  size_t taken = 0;
  while (taken < max_records && pos_ < buf_.size()) {
    std::string_view data(buf_.data() + pos_, buf_.size() - pos_);
    if (skipping_) {
      size_t nl = data.find('\n');
      pos_ = nl == std::string_view::npos ? buf_.size() : pos_ + nl + 1;
      skipping_ = nl == std::string_view::npos;
      continue;
    }
    if (data.front() == '\n') {  // a blank line is no record
      ++pos_;
      continue;
    }
    size_t size = whole_record_size(data);
    if (size == 0) {
      if (data.size() > kKmsgMaxFileRecordBytes) {  // no newline in sight: cut it off
        ++stats_.malformed;
        skipping_ = true;
        pos_ = buf_.size();
      }
      break;
    }
    pos_ += size;
    if (size > kKmsgMaxFileRecordBytes) {
      ++stats_.malformed;
      continue;
    }
    taken += take(data.substr(0, size), out) ? 1 : 0;
  }
  return taken;
}

Status KmsgReader::poll_file(std::vector<KmsgRecord>& out, size_t max_records) {
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) return fail("fstat", errno);
  if (static_cast<uint64_t>(st.st_size) < file_read_) {  // truncated: read it again (seen records are skipped)
    if (::lseek(fd_.get(), 0, SEEK_SET) < 0) return fail("lseek", errno);
    buf_.clear();
    pos_ = 0;
    file_read_ = 0;
    skipping_ = false;
  }
  size_t taken = take_file_records(out, max_records);
  while (taken < max_records) {
    if (pos_ > 0) {  // keep only the bytes not yet taken
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    size_t old = buf_.size();
    buf_.resize(old + kFileChunkBytes);
    ssize_t n = ::read(fd_.get(), buf_.data() + old, kFileChunkBytes);
    buf_.resize(old + (n > 0 ? static_cast<size_t>(n) : 0));
    if (n == 0) break;
    if (n < 0) {
      int err = errno;
      if (err == EINTR) continue;
      if (err == EAGAIN || err == EWOULDBLOCK) break;
      return fail("read", err);
    }
    file_read_ += static_cast<uint64_t>(n);
    taken += take_file_records(out, max_records - taken);
  }
  return Status::ok();
}

Expected<std::string> read_boot_id(const std::string& path) {
  Expected<std::string> id = base::read_trimmed(path);
  if (!id) return id.status();
  if (id->empty()) return Status::error(path + ": empty boot id");
  return id;
}

}  // namespace llmon::logwatch
