// UniqueFd: the sole owner of a POSIX file descriptor, closed when the owner
// goes away (RAII). Move-only; -1 means "none". get() lends the descriptor,
// release() gives it up without closing, reset() closes the held one and
// takes another. close(2) errors are ignored: callers that must know whether
// the data reached the disk fsync first. Like any value, not thread-safe.
#pragma once

#include <unistd.h>

#include <utility>

namespace llmon::base {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // The descriptor, now the caller's to close; this holds none afterwards.
  int release() { return std::exchange(fd_, -1); }
  // Closes the held descriptor (if any, and unless it is `fd`) and holds `fd`.
  void reset(int fd = -1) {
    if (fd_ >= 0 && fd_ != fd) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace llmon::base
