// filesystem collector: node_filesystem_{size,free,avail}_bytes, _files,
// _files_free, _readonly, _device_error{device,fstype,mountpoint} for the
// mounts in <procfs>/1/mounts (falling back to <procfs>/mounts), statvfs'd
// under --path.rootfs (node_exporter 1.5 filesystem_linux.go). statvfs runs on
// worker threads; the cycle waits at most collector.filesystem.mount-timeout,
// and a mount that did not answer is reported device_error=1 and skipped until
// its call returns (see StatfsRunner).
#include "collector/filesystem.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <tuple>

#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/builtin.h"
#include "procfs/mounts.h"

namespace llmon::collector {
namespace {

using model::MetricType;

// Go-style duration ("5s", "1m30s", "250ms") in milliseconds; nullopt if invalid.
std::optional<int64_t> parse_duration_ms(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s == "0") return 0;
  int64_t total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    auto n = base::parse_i64(s.substr(start, i - start));
    size_t ustart = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    std::string_view unit = s.substr(ustart, i - ustart);
    int64_t mult = unit == "ms" ? 1 : unit == "s" ? 1000 : unit == "m" ? 60'000 : unit == "h" ? 3'600'000 : 0;
    if (!n || mult == 0) return std::nullopt;
    total += *n * mult;
  }
  return total;
}

struct Mount {
  std::string device, mount_point, fs_type;  // the labels
  std::string statfs_path;                   // mount point under --path.rootfs
  bool read_only = false;
};

class FilesystemCollector final : public Collector {
 public:
  FilesystemCollector(const CollectorContext& ctx, StatfsRunner::StatvfsFn fn, int64_t handoff_ms)
      : fs_(ctx.fs),
        mounts1_(ctx.fs.proc("1/mounts")),
        mounts_(ctx.fs.proc("mounts")),
        timeout_ms_(parse_duration_ms(ctx.option("collector.filesystem.mount-timeout", "5s")).value_or(5000)),
        runner_(std::move(fn), handoff_ms) {
    try {
      mp_exclude_ = std::regex(ctx.option("collector.filesystem.mount-points-exclude"),
                               std::regex::ECMAScript | std::regex::optimize);
      fs_exclude_ = std::regex(ctx.option("collector.filesystem.fs-types-exclude"),
                               std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      regex_status_ = Status::error(std::string("filesystem: invalid exclude regexp: ") + e.what());
    }
  }

  Status collect(model::SnapshotBuilder& out) override {
    if (!regex_status_) return regex_status_;
    // /proc/1/mounts is the host's table even when we run in a container with
    // the host's PID namespace; hidepid can hide it, then use our own.
    auto text = mounts1_.read();
    const base::CachedFile* src = &mounts1_;
    if (!text) {
      text = mounts_.read();
      src = &mounts_;
      if (!text) return text.status();
    }
    if (*text != last_text_ || !parsed_) {
      Status s = reparse(*text);
      if (!s) return s.with_context(src->path());
      last_text_.assign(text->data(), text->size());
    }

    runner_.run(paths_, timeout_ms_, results_);

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
    auto entries = procfs::parse_mounts(text);
    if (!entries) return entries.status();
    mounts_list_.clear();
    for (auto& e : *entries) {
      Mount m;
      m.mount_point = fs_.strip_root(e.mount_point);
      if (std::regex_search(m.mount_point, mp_exclude_)) continue;
      if (std::regex_search(e.fs_type, fs_exclude_)) continue;
      m.read_only = e.read_only();
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
    paths_.clear();
    for (const auto& m : mounts_list_) paths_.push_back(m.statfs_path);
    parsed_ = true;
    return Status::ok();
  }

  procfs::Fs fs_;
  base::CachedFile mounts1_, mounts_;
  int64_t timeout_ms_;
  std::regex mp_exclude_, fs_exclude_;
  Status regex_status_;
  StatfsRunner runner_;

  std::string last_text_;
  bool parsed_ = false;
  std::vector<Mount> mounts_list_;
  std::vector<std::string> paths_;
  std::vector<StatfsRunner::Result> results_;
};

}  // namespace

std::unique_ptr<Collector> make_filesystem_with(const CollectorContext& ctx, StatfsRunner::StatvfsFn statvfs_fn,
                                                int64_t handoff_ms) {
  return std::make_unique<FilesystemCollector>(ctx, std::move(statvfs_fn), handoff_ms);
}

std::unique_ptr<Collector> make_filesystem(const CollectorContext& ctx) {
  return make_filesystem_with(ctx, nullptr);
}

}  // namespace llmon::collector
