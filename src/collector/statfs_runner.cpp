#include "collector/statfs_runner.h"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_set>

namespace llmon::collector {

using Clock = std::chrono::steady_clock;

bool statvfs_cannot_hang(std::string_view fs_type) {
  // Keep sorted; checked with binary search.
  static constexpr std::string_view kLocal[] = {
      "bcachefs", "binfmt_misc", "bpf",      "btrfs",   "cgroup", "cgroup2", "configfs", "debugfs",
      "devpts",   "devtmpfs",    "efivarfs", "erofs",   "exfat",  "ext2",    "ext3",     "ext4",
      "f2fs",     "fusectl",     "hfs",      "hfsplus", "hugetlbfs", "iso9660", "jfs",   "minix",
      "mqueue",   "msdos",       "nilfs2",   "nsfs",    "ntfs",   "ntfs3",   "proc",     "pstore",
      "ramfs",    "reiserfs",    "rootfs",   "securityfs", "squashfs", "sysfs", "tmpfs", "tracefs",
      "udf",      "vfat",        "xfs",      "zfs",
  };
  static_assert(std::is_sorted(std::begin(kLocal), std::end(kLocal)));
  return std::binary_search(std::begin(kLocal), std::end(kLocal), fs_type);
}

struct StatfsRunner::Shared {
  mutable std::mutex mu;
  std::condition_variable work_cv;          // workers wait here for a batch
  mutable std::condition_variable done_cv;  // run() and wait_idle() wait here
  StatvfsFn fn;
  bool shutdown = false;

  // The batch of the current run(); workers only take jobs while it is open.
  uint64_t batch = 0;
  bool open = false;
  std::vector<std::string> paths;
  std::vector<size_t> queue;  // indices into paths still to call, from `next` on
  size_t next = 0;
  std::vector<Result> results;
  std::vector<char> answered;
  size_t pending = 0;  // queued or running, not answered
  Clock::time_point last_progress;

  std::unordered_set<std::string> stuck;
  size_t live = 0;  // worker threads alive
  size_t idle = 0;  // of those, waiting for work
};

namespace {

void worker_main(std::shared_ptr<StatfsRunner::Shared> sp) {
  auto& s = *sp;
  std::string path;  // a copy: the batch may be replaced while we are in the call
  std::unique_lock lk(s.mu);
  for (;;) {
    if (s.shutdown) break;
    if (s.open && s.next < s.queue.size()) {
      size_t idx = s.queue[s.next++];
      uint64_t batch = s.batch;
      path.assign(s.paths[idx]);
      s.last_progress = Clock::now();
      lk.unlock();
      StatfsRunner::Result r;
      errno = 0;
      if (s.fn(path.c_str(), &r.st) == 0) {
        r.outcome = StatfsRunner::Outcome::kOk;
      } else {
        r.outcome = StatfsRunner::Outcome::kError;
        r.err = errno;
      }
      lk.lock();
      s.last_progress = Clock::now();
      if (s.open && s.batch == batch) {
        s.results[idx] = r;
        s.answered[idx] = 1;
        if (--s.pending == 0) s.done_cv.notify_all();
      } else {
        // Answered after its run's deadline: the mount responds again.
        s.stuck.erase(path);
      }
      continue;
    }
    // Nothing to do. One idle worker is enough; extra ones (started while
    // another sat in a slow call) leave.
    if (s.idle >= 1) break;
    ++s.idle;
    s.done_cv.notify_all();
    s.work_cv.wait(lk);
    --s.idle;
  }
  --s.live;
  s.done_cv.notify_all();
}

}  // namespace

StatfsRunner::StatfsRunner(StatvfsFn fn, int64_t handoff_ms, size_t max_workers)
    : s_(std::make_shared<Shared>()), handoff_ms_(handoff_ms), max_workers_(max_workers == 0 ? 1 : max_workers) {
  s_->fn = fn ? std::move(fn) : StatvfsFn([](const char* p, struct statvfs* st) { return ::statvfs(p, st); });
}

StatfsRunner::~StatfsRunner() {
  std::lock_guard lk(s_->mu);
  s_->shutdown = true;
  s_->open = false;
  s_->work_cv.notify_all();
}

void StatfsRunner::spawn_locked() {
  if (s_->live >= max_workers_) return;
  try {
    std::thread(worker_main, s_).detach();
    ++s_->live;
  } catch (const std::system_error&) {
    // No thread: the remaining calls time out this run and are retried next run.
  }
}

void StatfsRunner::run(const std::vector<std::string>& paths, int64_t timeout_ms, std::vector<Result>& out) {
  auto& s = *s_;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  const auto handoff = std::chrono::milliseconds(handoff_ms_);
  std::unique_lock lk(s.mu);
  const size_t n = paths.size();
  s.paths = paths;
  s.results.assign(n, Result{});
  s.answered.assign(n, 0);
  s.queue.clear();
  s.next = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s.stuck.count(paths[i])) {
      s.results[i].outcome = Outcome::kStuck;
      s.answered[i] = 1;
    } else {
      s.queue.push_back(i);
    }
  }
  s.pending = s.queue.size();
  ++s.batch;
  s.open = true;
  s.last_progress = Clock::now();
  if (s.pending > 0) {
    // Busy workers are all in calls of earlier runs (stuck mounts): start one.
    if (s.idle == 0) spawn_locked();
    s.work_cv.notify_all();
  }
  while (s.pending > 0) {
    auto now = Clock::now();
    if (now >= deadline) break;
    s.done_cv.wait_until(lk, std::min(deadline, now + handoff));
    if (s.pending == 0) break;
    now = Clock::now();
    if (s.next < s.queue.size() && s.idle == 0 && now - s.last_progress >= handoff) {
      spawn_locked();
      s.last_progress = now;
      s.work_cv.notify_all();
    }
  }
  if (s.pending > 0) {
    for (size_t q = 0; q < s.queue.size(); ++q) {
      size_t idx = s.queue[q];
      if (s.answered[idx]) continue;
      s.results[idx].outcome = Outcome::kTimeout;
      if (q < s.next) s.stuck.insert(paths[idx]);  // its call is still outstanding
    }
  }
  s.open = false;
  s.pending = 0;
  out = s.results;
}

bool StatfsRunner::is_stuck(const std::string& path) const {
  std::lock_guard lk(s_->mu);
  return s_->stuck.count(path) > 0;
}

size_t StatfsRunner::live_workers() const {
  std::lock_guard lk(s_->mu);
  return s_->live;
}

bool StatfsRunner::wait_idle(int64_t timeout_ms) const {
  std::unique_lock lk(s_->mu);
  return s_->done_cv.wait_for(lk, std::chrono::milliseconds(timeout_ms), [&] { return s_->idle == s_->live; });
}

}  // namespace llmon::collector
