#include "base/file_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace llmon::base {
namespace {

Status errno_status(const std::string& what, const std::string& path, int err) {
  return Status::error(what + " " + path + ": " + std::strerror(err));
}

}  // namespace

Status pread_to_end(int fd, const std::string& path, std::string& out) {
  if (out.capacity() < 4096) out.reserve(4096);
  size_t used = 0;
  out.resize(out.capacity());
  for (;;) {
    ssize_t n = ::pread(fd, out.data() + used, out.size() - used, static_cast<off_t>(used));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      out.clear();
      return errno_status("read", path, err);
    }
    if (n == 0) break;  // the end
    used += static_cast<size_t>(n);
    // A short read is not the end: seq_files of many records (/proc/net/dev,
    // diskstats, mounts, net/tcp, interrupts) answer one page per read
    // however large the buffer. The extra read that returns 0 costs one
    // syscall on the small files.
    if (used == out.size()) out.resize(out.size() * 2);
  }
  out.resize(used);
  return Status::ok();
}

Status read_file(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.clear();
    return errno_status("open", path, errno);
  }
  Status s = pread_to_end(fd, path, out);
  ::close(fd);
  return s;
}

Expected<std::string> read_file(const std::string& path) {
  std::string out;
  Status s = read_file(path, out);
  if (!s) return s;
  return out;
}

Expected<std::string> read_trimmed(const std::string& path) {
  auto r = read_file(path);
  if (!r) return r;
  std::string& s = *r;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\0'))
    s.pop_back();
  return r;
}

CachedFile::~CachedFile() {
  if (fd_ >= 0) ::close(fd_);
}

CachedFile::CachedFile(CachedFile&& o) noexcept
    : path_(std::move(o.path_)), buf_(std::move(o.buf_)), fd_(o.fd_) {
  o.fd_ = -1;
}

CachedFile& CachedFile::operator=(CachedFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    buf_ = std::move(o.buf_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Status CachedFile::open_fd() {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return errno_status("open", path_, errno);
  return Status::ok();
}

Expected<std::string_view> CachedFile::read() {
  if (fd_ < 0) {
    Status s = open_fd();
    if (!s) return s;
  }
  Status s = pread_to_end(fd_, path_, buf_);
  if (!s) {
    // The file may have been replaced (device gone); retry once on a new fd.
    ::close(fd_);
    fd_ = -1;
    Status again = open_fd();
    if (!again) return again;
    s = pread_to_end(fd_, path_, buf_);
    if (!s) return s;
  }
  return std::string_view(buf_);
}

}  // namespace llmon::base
