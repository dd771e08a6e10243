// Reading small kernel text files (procfs, sysfs) cheaply and safely.
// read_file() opens, reads and closes. CachedFile keeps the descriptor open and
// re-reads with pread(offset 0), which seq_file-backed files regenerate on each
// call; it reopens when the file vanished (e.g. a NIC removed). Both read on
// until a read returns 0: a seq_file of many records (/proc/net/dev,
// /proc/diskstats, mounts, /proc/net/tcp, /proc/interrupts, /proc/cpuinfo)
// answers one page per read however large the buffer, so on a large host a
// short read is not the end. Not thread-safe: one owner (a collector) per
// CachedFile.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::base {

// Reads fd from offset 0 to its end into out (cleared first, grown as
// needed); `path` names the file in errors.
Status pread_to_end(int fd, const std::string& path, std::string& out);
// Reads the whole file into out (cleared first). Errors name the path and errno.
Status read_file(const std::string& path, std::string& out);
Expected<std::string> read_file(const std::string& path);
// Reads a sysfs-style one-line file, trailing whitespace trimmed.
Expected<std::string> read_trimmed(const std::string& path);

class CachedFile {
 public:
  explicit CachedFile(std::string path) : path_(std::move(path)) {}
  ~CachedFile();
  CachedFile(const CachedFile&) = delete;
  CachedFile& operator=(const CachedFile&) = delete;
  CachedFile(CachedFile&& o) noexcept;
  CachedFile& operator=(CachedFile&& o) noexcept;

  // Re-reads the whole file into an internal buffer; the view stays valid until
  // the next read() or destruction.
  Expected<std::string_view> read();
  const std::string& path() const { return path_; }

 private:
  Status open_fd();
  std::string path_;
  std::string buf_;
  int fd_ = -1;
};

}  // namespace llmon::base
