// filesystem collector: node_filesystem_{size,free,avail}_bytes, _files,
// _files_free, _readonly, _device_error{device,fstype,mountpoint} for the
// mounts in <procfs>/1/mounts (falling back to <procfs>/mounts), statvfs'd
// under --path.rootfs (node_exporter 1.5 filesystem_linux.go). Local
// filesystems (statvfs_cannot_hang) are statvfs'd inline; the others on worker
// threads: the cycle waits at most collector.filesystem.mount-timeout, and a
// mount that did not answer is reported device_error=1 and skipped until its
// call returns (see StatfsRunner). The mount table is re-read only when the
// kernel signals a change (MountTable).
#include "collector/filesystem.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <regex>
#include <tuple>
#include <unordered_set>

#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/options.h"
#include "procfs/mounts.h"

namespace llmon::collector {
namespace {

using model::MetricType;

struct Mount {
  std::string device, mount_point, fs_type;  // the labels
  std::string statfs_path;                   // mount point under --path.rootfs
  bool read_only = false;
  bool inline_statvfs = false;  // cannot hang: statvfs on the collector's thread
};

class FilesystemCollector final : public Collector {
 public:
  FilesystemCollector(const CollectorContext& ctx, StatfsRunner::StatvfsFn fn, int64_t handoff_ms,
                      InlineFsTypeFn inline_fs_type)
      : fs_(ctx.fs),
        clock_(ctx.clock ? ctx.clock : &system_clock_),
        table_(ctx.fs.proc("1/mounts"), ctx.fs.proc("mounts"), *clock_),
        timeout_ms_(ctx.option(flag::kCollectorFilesystemMountTimeout)),
        statvfs_(fn ? fn : StatfsRunner::StatvfsFn([](const char* p, struct statvfs* st) { return ::statvfs(p, st); })),
        inline_fs_type_(inline_fs_type ? std::move(inline_fs_type) : InlineFsTypeFn(statvfs_cannot_hang)),
        runner_(std::move(fn), handoff_ms) {
    try {
      mp_exclude_ = std::regex(ctx.option(flag::kCollectorFilesystemMountPointsExclude),
                               std::regex::ECMAScript | std::regex::optimize);
      fs_exclude_ = std::regex(ctx.option(flag::kCollectorFilesystemFsTypesExclude),
                               std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      regex_status_ = Status::error(std::string("filesystem: invalid exclude regexp: ") + e.what());
    }
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_status_) return regex_status_;
    // /proc/1/mounts is the host's table even when we run in a container with
    // the host's PID namespace; hidepid can hide it, then use our own.
    bool changed = false;
    Status s = table_.refresh(!parsed_, changed);
    if (!s) return s;
    if (changed || !parsed_) {
      s = reparse(table_.text());
      if (!s) return s.with_context(table_.path());
    }
    stat_all();

    auto err = out.family("node_filesystem_device_error",
                          "Whether an error occurred while getting statistics for the given device.",
                          MetricType::kGauge, {"device", "fstype", "mountpoint"});
    for (size_t i = 0; i < mounts_list_.size(); ++i) {
      const Mount& m = mounts_list_[i];
      err.add({m.device, m.fs_type, m.mount_point}, ok(i) ? 0 : 1);
    }
    // Go's Statfs_t: Blocks, Bfree and Bavail are counted in units of Bsize.
    emit(out, "node_filesystem_size_bytes", "Filesystem size in bytes.",
         [](const struct statvfs& st) { return static_cast<double>(st.f_blocks) * static_cast<double>(st.f_bsize); });
    emit(out, "node_filesystem_free_bytes", "Filesystem free space in bytes.",
         [](const struct statvfs& st) { return static_cast<double>(st.f_bfree) * static_cast<double>(st.f_bsize); });
    emit(out, "node_filesystem_avail_bytes", "Filesystem space available to non-root users in bytes.",
         [](const struct statvfs& st) { return static_cast<double>(st.f_bavail) * static_cast<double>(st.f_bsize); });
    emit(out, "node_filesystem_files", "Filesystem total file nodes.",
         [](const struct statvfs& st) { return static_cast<double>(st.f_files); });
    emit(out, "node_filesystem_files_free", "Filesystem total free file nodes.",
         [](const struct statvfs& st) { return static_cast<double>(st.f_ffree); });
    auto ro = out.family("node_filesystem_readonly", "Filesystem read-only status.", MetricType::kGauge,
                         {"device", "fstype", "mountpoint"});
    for (size_t i = 0; i < mounts_list_.size(); ++i) {
      const Mount& m = mounts_list_[i];
      if (ok(i)) ro.add({m.device, m.fs_type, m.mount_point}, m.read_only ? 1 : 0);
    }
    return Status::ok();
  }

 private:
  bool ok(size_t i) const { return results_[i].outcome == StatfsRunner::Outcome::kOk; }

  // results_[i] for every mount: inline ones here, the rest through the runner
  // (which starts no thread and takes no lock when it has nothing to do).
  void stat_all() {
    results_.resize(mounts_list_.size());
    for (size_t i = 0; i < mounts_list_.size(); ++i) {
      if (!mounts_list_[i].inline_statvfs) continue;
      StatfsRunner::Result& r = results_[i];
      errno = 0;
      if (statvfs_(mounts_list_[i].statfs_path.c_str(), &r.st) == 0) {
        r.outcome = StatfsRunner::Outcome::kOk;
        r.err = 0;
      } else {
        r.outcome = StatfsRunner::Outcome::kError;
        r.err = errno;
      }
    }
    if (worker_paths_.empty()) return;
    runner_.run(worker_paths_, timeout_ms_, worker_results_);
    for (size_t j = 0; j < worker_index_.size(); ++j) results_[worker_index_[j]] = worker_results_[j];
  }

  template <typename F>
  void emit(model::SnapshotBuilder& out, std::string_view name, std::string_view help, F value) const {
    auto fam = out.family(name, help, MetricType::kGauge, {"device", "fstype", "mountpoint"});
    for (size_t i = 0; i < mounts_list_.size(); ++i) {
      const Mount& m = mounts_list_[i];
      if (ok(i)) fam.add({m.device, m.fs_type, m.mount_point}, value(results_[i].st));
    }
  }

  // Rebuilds the list of mounts to report: excluded mount points and types
  // dropped, one entry per {device, mountpoint, fstype} (the first), sorted.
  Status reparse(std::string_view text) {
    parsed_ = false;
    auto entries = procfs::parse_mounts(text);
    if (!entries) return entries.status();
    // Mount points that hold a mount whose statvfs may hang: nothing at or
    // below them is statvfs'd inline (the path walk or an over-mount reaches it).
    std::unordered_set<std::string_view> may_hang;
    for (const auto& e : *entries)
      if (!inline_fs_type_(e.fs_type)) may_hang.insert(e.mount_point);
    auto inline_ok = [&](const procfs::MountEntry& e) {
      if (!inline_fs_type_(e.fs_type)) return false;
      // The mount point itself, then each parent directory up to "/".
      std::string_view p = e.mount_point;
      for (;;) {
        if (may_hang.count(p)) return false;
        size_t slash = p.rfind('/');
        if (p == "/" || slash == std::string_view::npos) return true;
        p = slash == 0 ? std::string_view("/") : p.substr(0, slash);
      }
    };
    mounts_list_.clear();
    for (auto& e : *entries) {
      Mount m;
      m.mount_point = fs_.strip_root(e.mount_point);
      if (std::regex_search(m.mount_point, mp_exclude_)) continue;
      if (std::regex_search(e.fs_type, fs_exclude_)) continue;
      m.read_only = e.read_only();
      m.inline_statvfs = inline_ok(e);
      m.device = std::move(e.device);
      m.fs_type = std::move(e.fs_type);
      m.statfs_path = fs_.rooted(m.mount_point);
      mounts_list_.push_back(std::move(m));
    }
    auto key = [](const Mount& m) { return std::tie(m.device, m.fs_type, m.mount_point); };
    std::stable_sort(mounts_list_.begin(), mounts_list_.end(),
                     [&](const Mount& a, const Mount& b) { return key(a) < key(b); });
    mounts_list_.erase(std::unique(mounts_list_.begin(), mounts_list_.end(),
                                   [&](const Mount& a, const Mount& b) { return key(a) == key(b); }),
                       mounts_list_.end());
    worker_paths_.clear();
    worker_index_.clear();
    for (size_t i = 0; i < mounts_list_.size(); ++i) {
      if (mounts_list_[i].inline_statvfs) continue;
      worker_paths_.push_back(mounts_list_[i].statfs_path);
      worker_index_.push_back(i);
    }
    parsed_ = true;
    return Status::ok();
  }

  procfs::Fs fs_;
  base::SystemClock system_clock_;
  const base::Clock* clock_;
  MountTable table_;
  int64_t timeout_ms_;
  std::regex mp_exclude_, fs_exclude_;
  Status regex_status_;
  StatfsRunner::StatvfsFn statvfs_;
  InlineFsTypeFn inline_fs_type_;
  StatfsRunner runner_;

  bool parsed_ = false;
  std::vector<Mount> mounts_list_;
  std::vector<std::string> worker_paths_;  // statfs_path of the mounts that need the runner
  std::vector<size_t> worker_index_;       // their index in mounts_list_
  std::vector<StatfsRunner::Result> results_, worker_results_;
};

}  // namespace

// ---------------------------------------------------------------------------
// MountTable

MountTable::MountTable(std::string primary, std::string fallback, const base::Clock& clock, int64_t full_read_ms)
    : primary_(std::move(primary)), fallback_(std::move(fallback)), clock_(clock), full_read_ms_(full_read_ms) {}

MountTable::~MountTable() { close_fd(); }

void MountTable::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  pollable_ = false;
}

Status MountTable::open_fd() {
  fd_ = ::open(primary_.c_str(), O_RDONLY | O_CLOEXEC);
  path_ = primary_;
  if (fd_ < 0) {
    fd_ = ::open(fallback_.c_str(), O_RDONLY | O_CLOEXEC);
    path_ = fallback_;
    if (fd_ < 0) return Status::error("open " + fallback_ + ": " + std::strerror(errno));
  }
  // Only procfs' mounts files signal changes; anything else is re-read each time.
  struct statfs sf {};
  pollable_ = ::fstatfs(fd_, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
  return Status::ok();
}

// The whole file from offset 0 (procfs regenerates it): a mounts seq_file
// answers one page per read, so a host with many mounts takes several.
Status MountTable::read_into(std::string& out) {
  Status s = base::pread_to_end(fd_, path_, out);
  if (s) ++reads_;
  return s;
}

Status MountTable::refresh(bool force, bool& changed) {
  changed = false;
  const int64_t now = clock_.now_ms();
  bool due = force || fd_ < 0 || !pollable_ || now - last_read_ms_ >= full_read_ms_ || now < last_read_ms_;
  if (fd_ < 0) {
    Status s = open_fd();
    if (!s) return s;
  }
  if (pollable_) {
    // Always poll, so a change is consumed before the read that picks it up.
    pollfd p{fd_, POLLPRI, 0};
    int r = 0;
    do {
      r = ::poll(&p, 1, 0);
    } while (r < 0 && errno == EINTR);
    if (r != 0) due = due || r < 0 || (p.revents & (POLLPRI | POLLERR | POLLNVAL)) != 0;
  }
  if (!due) return Status::ok();
  Status s = read_into(scratch_);
  if (!s) {
    // The file may be gone (PID namespace change, hidepid): reopen once.
    close_fd();
    Status again = open_fd();
    if (!again) return again;
    s = read_into(scratch_);
    if (!s) return s;
  }
  last_read_ms_ = now;
  if (scratch_ != text_) {
    text_.swap(scratch_);
    changed = true;
  }
  return Status::ok();
}

std::unique_ptr<Collector> make_filesystem_with(const CollectorContext& ctx, StatfsRunner::StatvfsFn statvfs_fn,
                                                int64_t handoff_ms, InlineFsTypeFn inline_fs_type) {
  return std::make_unique<FilesystemCollector>(ctx, std::move(statvfs_fn), handoff_ms, std::move(inline_fs_type));
}

std::unique_ptr<Collector> make_filesystem(const CollectorContext& ctx) {
  return make_filesystem_with(ctx, nullptr);
}

}  // namespace llmon::collector
