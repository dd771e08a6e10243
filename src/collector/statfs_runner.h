// StatfsRunner: statvfs() of many paths on worker threads, waiting at most a
// deadline per run(), so a hung mount (dead NFS server) cannot stall the cycle.
// A path whose call is still outstanding at the deadline becomes "stuck":
// later runs answer it kStuck at once, without a new call, until that call
// returns (node_exporter's stuckMounts). When the queue has not moved for the
// handoff time (every worker sits in a slow call), another worker takes over
// the queue, so one slow mount does not hold up the others.
// Workers are detached and share their state with the runner through a
// shared_ptr: a worker abandoned in a hung call may outlive the runner and
// touches nothing the runner owns. run() is for one thread at a time.
// statvfs_cannot_hang() is the one list of filesystem types whose statvfs the
// filesystem collector calls inline instead, without a worker.
#pragma once

#include <sys/statvfs.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmon::collector {

// True for local filesystem types (block-device, memory and kernel pseudo
// filesystems) whose statfs answers from in-memory state and so cannot hang
// on a network peer. False for network and FUSE filesystems (nfs, nfs4, cifs,
// smb3, fuse.*, ceph, glusterfs, 9p, lustre, ...), autofs (statvfs would
// trigger the automount), overlay (its upper/lower layers may be remote) and
// every type not listed.
bool statvfs_cannot_hang(std::string_view fs_type);

class StatfsRunner {
 public:
  // Returns 0, or -1 with errno set, like ::statvfs. Called on worker threads.
  using StatvfsFn = std::function<int(const char* path, struct statvfs* out)>;

  enum class Outcome { kOk, kError, kTimeout, kStuck };
  struct Result {
    Outcome outcome = Outcome::kTimeout;
    struct statvfs st {};
    int err = 0;  // errno when kError
  };

  // fn defaults to ::statvfs.
  explicit StatfsRunner(StatvfsFn fn = nullptr, int64_t handoff_ms = 50, size_t max_workers = 32);
  ~StatfsRunner();
  StatfsRunner(const StatfsRunner&) = delete;
  StatfsRunner& operator=(const StatfsRunner&) = delete;

  // Stats every path; returns when all have answered or timeout_ms passed.
  // out[i] is the result for paths[i]; unanswered calls are kTimeout (and
  // their paths become stuck), paths stuck from earlier runs are kStuck.
  void run(const std::vector<std::string>& paths, int64_t timeout_ms, std::vector<Result>& out);

  bool is_stuck(const std::string& path) const;
  size_t live_workers() const;
  // Waits until no call is in flight (tests); false on timeout.
  bool wait_idle(int64_t timeout_ms) const;

  struct Shared;

 private:
  void spawn_locked();
  std::shared_ptr<Shared> s_;
  int64_t handoff_ms_;
  size_t max_workers_;
};

}  // namespace llmon::collector
