#include "base/seq_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace llmon::base {

Status SeqFile::read_all() {
  if (!fd_.valid()) {
    fd_.reset(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_.valid()) return Status::error("open " + path_ + ": " + std::strerror(errno));
  }
  if (buf_.capacity() < 16384) buf_.reserve(16384);
  size_t used = 0;
  buf_.resize(buf_.capacity());
  for (;;) {
    if (used == buf_.size()) buf_.resize(buf_.size() * 2);
    ssize_t n = ::pread(fd_.get(), buf_.data() + used, buf_.size() - used, static_cast<off_t>(used));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      buf_.clear();
      return Status::error("read " + path_ + ": " + std::strerror(err));
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  buf_.resize(used);
  return Status::ok();
}

Expected<std::string_view> SeqFile::read() {
  if (Status s = read_all(); !s) {
    fd_.reset();  // the file may have been replaced; retry once on a new descriptor
    if (Status again = read_all(); !again) return again;
  }
  return std::string_view(buf_);
}

}  // namespace llmon::base
