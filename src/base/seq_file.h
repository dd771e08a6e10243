// SeqFile: a kernel text file made of many records (/proc/interrupts,
// /proc/cpuinfo, /proc/net/tcp), read whole each time. Such seq_files answer
// one read with at most one page of whole records (about 4 KiB), however
// large the buffer, so a short read is not the end: SeqFile reads on until a
// read returns 0. CachedFile stops at the first short read, which is right
// for sysfs attributes and single-record files (meminfo, stat) but cuts
// these off after the first page on a large host. Keeps the descriptor open
// (pread from 0, reopened once when a read fails); one owner, not thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "base/unique_fd.h"

namespace llmon::base {

class SeqFile {
 public:
  explicit SeqFile(std::string path) : path_(std::move(path)) {}
  // The whole file; the view stays valid until the next read().
  Expected<std::string_view> read();
  const std::string& path() const { return path_; }

 private:
  Status read_all();
  std::string path_;
  std::string buf_;
  UniqueFd fd_;
};

}  // namespace llmon::base
