// The filesystem collector's factory with injectable statvfs and inline-type
// policy (tests simulate hung mounts and observe which thread calls statvfs),
// and MountTable, the change-aware reader of the mount table it uses. The
// registry uses make_filesystem() (builtin.h): ::statvfs, statvfs_cannot_hang.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "collector/collector.h"
#include "collector/statfs_runner.h"

namespace llmon::collector {

// Whether statvfs of a mount of this type may run inline on the collector's
// thread (true) or must go through the StatfsRunner's workers and deadline.
using InlineFsTypeFn = std::function<bool(std::string_view fs_type)>;

// statvfs_fn null: ::statvfs; inline_fs_type null: statvfs_cannot_hang.
// A mount is statvfs'd inline only when its own type and the types of every
// mount on or above its mount point (over-mounts, parents a path walk crosses)
// are inline types; everything else uses the workers.
std::unique_ptr<Collector> make_filesystem_with(const CollectorContext& ctx, StatfsRunner::StatvfsFn statvfs_fn,
                                                int64_t handoff_ms = 50, InlineFsTypeFn inline_fs_type = nullptr);

// The mount table file (primary, else fallback), kept open. On procfs the
// kernel flags every mount-table change of the namespace with POLLPRI|POLLERR
// on the open file, so refresh() polls and re-reads only after a change, or
// when full_read_ms passed since the last read. A file that is not on procfs
// (a test fixture: regular files always poll readable) is re-read on every
// refresh(). One owner, not thread-safe.
class MountTable {
 public:
  MountTable(std::string primary, std::string fallback, const base::Clock& clock, int64_t full_read_ms = 60'000);
  ~MountTable();
  MountTable(const MountTable&) = delete;
  MountTable& operator=(const MountTable&) = delete;

  // Brings text() up to date (force: re-read even if no change was signalled).
  // changed: text() differs from what it was before this call. An error
  // leaves text() as it was.
  Status refresh(bool force, bool& changed);
  std::string_view text() const { return text_; }
  // The file in use ("" before the first successful open).
  const std::string& path() const { return path_; }
  bool pollable() const { return pollable_; }
  // How many times the file was read (tests).
  uint64_t reads() const { return reads_; }

 private:
  Status open_fd();
  Status read_into(std::string& out);
  void close_fd();

  std::string primary_, fallback_, path_;
  const base::Clock& clock_;
  int64_t full_read_ms_;
  int fd_ = -1;
  bool pollable_ = false;
  int64_t last_read_ms_ = 0;
  uint64_t reads_ = 0;
  std::string text_, scratch_;
};

}  // namespace llmon::collector
