#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "collector/builtin.h"
#include "collector/filesystem.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture_context;
using testing::series_count;
using testing::value_of;
using Ms = std::chrono::milliseconds;

double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void expect_sane(const model::Snapshot& snap, std::string_view mp) {
  double size = value_of(snap, "node_filesystem_size_bytes", {{"mountpoint", mp}});
  double free = value_of(snap, "node_filesystem_free_bytes", {{"mountpoint", mp}});
  double avail = value_of(snap, "node_filesystem_avail_bytes", {{"mountpoint", mp}});
  double files = value_of(snap, "node_filesystem_files", {{"mountpoint", mp}});
  double files_free = value_of(snap, "node_filesystem_files_free", {{"mountpoint", mp}});
  ASSERT_FALSE(std::isnan(size)) << mp;
  EXPECT_GT(size, 0) << mp;
  EXPECT_LE(avail, free) << mp;
  EXPECT_LE(free, size) << mp;
  EXPECT_LE(files_free, files) << mp;
}

TEST(FilesystemCollector, FixtureMounts) {
  auto c = make_filesystem(fixture_context());
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  // Kept: / /boot /data "/srv/with space" /run /run/user/1000 /home; the rest are
  // excluded mount points (/sys, /proc, /dev...) or types (cgroup2, overlay,
  // securityfs), and the second /dev/sda1 /boot line is a duplicate.
  EXPECT_EQ(series_count(snap, "node_filesystem_device_error"), 7u);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error",
                     {{"device", "/dev/mapper/vg0-root"}, {"fstype", "ext4"}, {"mountpoint", "/"}}),
            0);
  EXPECT_EQ(value_of(snap, "node_filesystem_readonly",
                     {{"device", "/dev/sda1"}, {"fstype", "ext4"}, {"mountpoint", "/boot"}}),
            1);
  EXPECT_EQ(value_of(snap, "node_filesystem_readonly", {{"mountpoint", "/"}}), 0);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error",
                     {{"device", "/dev/sdb1"}, {"fstype", "ext4"}, {"mountpoint", "/srv/with space"}}),
            0);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"device", "tmpfs"}, {"mountpoint", "/run/user/1000"}}),
            0);
  // /home is not in the rootfs fixture: statvfs fails, only device_error is reported.
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error",
                     {{"device", "nfs.example.com:/export/home"}, {"fstype", "nfs4"}, {"mountpoint", "/home"}}),
            1);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_filesystem_size_bytes", {{"mountpoint", "/home"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_filesystem_readonly", {{"mountpoint", "/home"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/sys"}})));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_filesystem_device_error", {{"fstype", "overlay"}})));
  for (const char* mp : {"/", "/boot", "/data", "/srv/with space", "/run", "/run/user/1000"}) expect_sane(snap, mp);
  EXPECT_EQ(series_count(snap, "node_filesystem_size_bytes"), 6u);
  const model::Family* f = snap.find("node_filesystem_avail_bytes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->label_names, (std::vector<std::string>{"device", "fstype", "mountpoint"}));
  EXPECT_EQ(f->help, "Filesystem space available to non-root users in bytes.");
}

TEST(FilesystemCollector, RootfsPrefixIsStrippedAndFallbackFile) {
  auto dir = std::filesystem::temp_directory_path() / ("llmon_fs_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "proc");
  std::filesystem::create_directories(dir / "root/data");
  // No proc/1/mounts (hidepid): the collector falls back to proc/mounts.
  std::ofstream(dir / "proc/mounts") << "/dev/vda1 " << (dir / "root/data").string() << " ext4 rw 0 0\n";
  auto ctx = fixture_context();
  ctx.fs.proc_root = (dir / "proc").string();
  ctx.fs.root = (dir / "root").string();
  auto c = make_filesystem(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"device", "/dev/vda1"}, {"mountpoint", "/data"}}), 0);
  expect_sane(snap, "/data");

  std::ofstream(dir / "proc/mounts") << "/dev/vda1 /data\n";  // malformed
  EXPECT_FALSE(collect_once(*c, snap));
  std::filesystem::remove_all(dir);
}

// A statvfs that blocks on one path until released, as a dead NFS server does.
struct Hang {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::atomic<int> calls{0};
  std::atomic<int> returned{0};
};

StatfsRunner::StatvfsFn hanging_statvfs(std::shared_ptr<Hang> h, std::string suffix) {
  return [h, suffix](const char* path, struct statvfs* st) {
    std::string_view p(path);
    if (p.size() >= suffix.size() && p.substr(p.size() - suffix.size()) == suffix) {
      h->calls++;
      std::unique_lock lk(h->mu);
      h->cv.wait(lk, [&] { return h->released; });
      h->returned++;
    }
    return ::statvfs(path, st);
  };
}

bool never_inline(std::string_view) { return false; }

TEST(FilesystemCollector, HungMountDoesNotStallTheCycle) {
  auto hang = std::make_shared<Hang>();
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorFilesystemMountTimeout, "300ms");
  // The fixture's /data is xfs: force the worker path a network mount would take.
  auto c = make_filesystem_with(ctx, hanging_statvfs(hang, "/data"), /*handoff_ms=*/20, never_inline);
  model::Snapshot snap;

  // Cycle 1: waits about the timeout, reports /data as an error, the rest normally.
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(collect_once(*c, snap));
  double ms = since_ms(t0);
  EXPECT_GE(ms, 280);
  EXPECT_LT(ms, 1500);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/data"}}), 1);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_filesystem_size_bytes", {{"mountpoint", "/data"}})));
  for (const char* mp : {"/", "/boot", "/srv/with space", "/run", "/run/user/1000"}) {
    EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", mp}}), 0) << mp;
    expect_sane(snap, mp);
  }
  EXPECT_EQ(hang->calls.load(), 1);

  // Cycle 2: the stuck mount is skipped at once, without a new call.
  t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_LT(since_ms(t0), 200);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/data"}}), 1);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/"}}), 0);
  expect_sane(snap, "/");
  EXPECT_EQ(hang->calls.load(), 1);

  // The server comes back: the pending call returns, the mount is reported again.
  {
    std::lock_guard lk(hang->mu);
    hang->released = true;
  }
  hang->cv.notify_all();
  auto deadline = std::chrono::steady_clock::now() + Ms(3000);
  bool recovered = false;
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(collect_once(*c, snap));
    if (value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/data"}}) == 0) {
      recovered = true;
      break;
    }
    std::this_thread::sleep_for(Ms(10));
  }
  ASSERT_TRUE(recovered);
  expect_sane(snap, "/data");
  EXPECT_EQ(hang->calls.load(), 2);
  EXPECT_EQ(hang->returned.load(), 2);
}

TEST(FilesystemCollector, DestroyedWhileAMountHangs) {
  auto hang = std::make_shared<Hang>();
  auto ctx = fixture_context();
  ctx.set_option(flag::kCollectorFilesystemMountTimeout, "100ms");
  {
    auto c = make_filesystem_with(ctx, hanging_statvfs(hang, "/boot"), 20, never_inline);
    model::Snapshot snap;
    ASSERT_TRUE(collect_once(*c, snap));
    EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/boot"}}), 1);
  }  // the collector is gone; its abandoned worker still sits in the call
  {
    std::lock_guard lk(hang->mu);
    hang->released = true;
  }
  hang->cv.notify_all();
  auto deadline = std::chrono::steady_clock::now() + Ms(3000);
  while (hang->returned.load() < 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(5));
  EXPECT_EQ(hang->returned.load(), 1);  // it returned into live state, not freed memory (ASan checks)
  std::this_thread::sleep_for(Ms(20));
}

TEST(StatvfsCannotHang, LocalTypesOnly) {
  for (const char* t : {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "vfat", "zfs", "f2fs", "rootfs", "proc"})
    EXPECT_TRUE(statvfs_cannot_hang(t)) << t;
  for (const char* t : {"nfs", "nfs4", "cifs", "smb3", "fuse", "fuse.sshfs", "fuseblk", "ceph", "glusterfs", "9p",
                        "lustre", "autofs", "overlay", "davfs", "", "ext4x", "EXT4"})
    EXPECT_FALSE(statvfs_cannot_hang(t)) << t;
}

// A statvfs that records which thread called it, per path.
struct CallLog {
  std::mutex mu;
  std::map<std::string, std::thread::id> thread_of;
  std::map<std::string, int> calls;
};

StatfsRunner::StatvfsFn recording_statvfs(std::shared_ptr<CallLog> log) {
  return [log](const char* path, struct statvfs* st) {
    {
      std::lock_guard lk(log->mu);
      log->thread_of[path] = std::this_thread::get_id();
      log->calls[path]++;
    }
    return ::statvfs(path, st);
  };
}

TEST(FilesystemCollector, LocalTypesAreStatvfsdInlineOthersOnAWorker) {
  auto ctx = fixture_context();
  auto log = std::make_shared<CallLog>();
  auto c = make_filesystem_with(ctx, recording_statvfs(log), 20);
  model::Snapshot snap;
  for (int cycle = 0; cycle < 2; ++cycle) ASSERT_TRUE(collect_once(*c, snap));
  const auto me = std::this_thread::get_id();
  // ext4, xfs and tmpfs: on the collector's (this) thread.
  for (const char* mp : {"/", "/boot", "/data", "/srv/with space", "/run", "/run/user/1000"}) {
    std::string path = ctx.fs.rooted(mp);
    ASSERT_EQ(log->calls.count(path), 1u) << mp;
    EXPECT_EQ(log->thread_of[path], me) << mp;
    EXPECT_EQ(log->calls[path], 2) << mp;
  }
  // nfs4: on a worker (statvfs fails there: /home is not in the rootfs fixture).
  std::string home = ctx.fs.rooted("/home");
  ASSERT_EQ(log->calls.count(home), 1u);
  EXPECT_NE(log->thread_of[home], me);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/home"}}), 1);
  expect_sane(snap, "/data");
}

TEST(FilesystemCollector, MountsOnOrBelowARemoteMountUseAWorker) {
  testing::TempFixture tf({});
  std::filesystem::create_directories(tf.path("rootfs/net/sub"));
  std::filesystem::create_directories(tf.path("rootfs/over"));
  std::filesystem::create_directories(tf.path("rootfs/local"));
  // /net/sub is ext4 below an NFS mount (the path walk crosses NFS); /over is
  // ext4 over-mounted by sshfs (statvfs reaches the top one); /local is plain.
  tf.write("proc/1/mounts",
           "/dev/vda1 / ext4 rw 0 0\n"
           "srv:/export /net nfs4 rw 0 0\n"
           "/dev/vdb1 /net/sub ext4 rw 0 0\n"
           "/dev/vdc1 /over ext4 rw 0 0\n"
           "me@host:/x /over fuse.sshfs rw 0 0\n"
           "/dev/vdd1 /local xfs rw 0 0\n"
           "/dev/vde1 /localx ext4 rw 0 0\n");
  auto ctx = tf.context();
  ctx.fs.root = tf.path("rootfs");
  auto log = std::make_shared<CallLog>();
  auto c = make_filesystem_with(ctx, recording_statvfs(log), 20);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  const auto me = std::this_thread::get_id();
  auto thread_of = [&](const char* mp) { return log->thread_of.at(ctx.fs.rooted(mp)); };
  EXPECT_EQ(thread_of("/"), me);
  EXPECT_EQ(thread_of("/local"), me);
  EXPECT_EQ(thread_of("/localx"), me);  // a sibling named like a prefix, not below /local
  EXPECT_NE(thread_of("/net"), me);
  EXPECT_NE(thread_of("/net/sub"), me);
  EXPECT_NE(thread_of("/over"), me);
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/net/sub"}}), 0);
  expect_sane(snap, "/net/sub");
}

TEST(FilesystemCollector, FixtureMountTableIsReReadEveryCycle) {
  testing::TempFixture tf({"proc/1/mounts"});
  auto ctx = tf.context();
  auto c = make_filesystem(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/data"}}), 0);
  tf.write("proc/1/mounts", "/dev/mapper/vg0-root / ext4 rw,relatime 0 0\n/dev/sda1 /boot ext4 rw 0 0\n");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_TRUE(std::isnan(value_of(snap, "node_filesystem_device_error", {{"mountpoint", "/data"}})));
  EXPECT_EQ(value_of(snap, "node_filesystem_readonly", {{"mountpoint", "/boot"}}), 0);  // was ro
  EXPECT_EQ(series_count(snap, "node_filesystem_device_error"), 2u);
  // A broken table fails the cycle, and keeps failing until it is fixed.
  tf.write("proc/1/mounts", "/dev/sda1 /boot\n");
  EXPECT_FALSE(collect_once(*c, snap));
  EXPECT_FALSE(collect_once(*c, snap));
  tf.write("proc/1/mounts", "/dev/sda1 /boot ext4 ro 0 0\n");
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_filesystem_readonly", {{"mountpoint", "/boot"}}), 1);
}

TEST(MountTable, RegularFileIsReadOnEveryRefresh) {
  testing::TempFixture tf({});
  tf.write("proc/mounts", "a / ext4 rw 0 0\n");
  base::ManualClock clock(1'000'000);
  MountTable t(tf.path("proc/1/mounts"), tf.path("proc/mounts"), clock);  // no 1/mounts: the fallback
  bool changed = false;
  ASSERT_TRUE(t.refresh(false, changed));
  EXPECT_TRUE(changed);
  EXPECT_FALSE(t.pollable());
  EXPECT_EQ(t.path(), tf.path("proc/mounts"));
  EXPECT_EQ(t.text(), "a / ext4 rw 0 0\n");
  ASSERT_TRUE(t.refresh(false, changed));
  EXPECT_FALSE(changed);
  EXPECT_EQ(t.reads(), 2u);
  tf.write("proc/mounts", "b / xfs rw 0 0\n");
  ASSERT_TRUE(t.refresh(false, changed));
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.text(), "b / xfs rw 0 0\n");
  EXPECT_EQ(t.reads(), 3u);

  MountTable missing(tf.path("proc/x"), tf.path("proc/y"), clock);
  Status s = missing.refresh(false, changed);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("proc/y"), std::string::npos) << s.message();
}

TEST(MountTable, ProcfsIsReReadOnlyOnChangeOrAfterTheInterval) {
  base::ManualClock clock(1'000'000);
  MountTable t("/proc/self/mounts", "/proc/mounts", clock, /*full_read_ms=*/60'000);
  bool changed = false;
  Status s = t.refresh(false, changed);
  if (!s || !t.pollable()) GTEST_SKIP() << "/proc/self/mounts is not a procfs file here: " << s.message();
  EXPECT_TRUE(changed);
  EXPECT_EQ(t.reads(), 1u);
  const std::string first(t.text());
  EXPECT_NE(first.find(" / "), std::string::npos);
  for (int i = 0; i < 3; ++i) {
    clock.advance_ms(1000);
    ASSERT_TRUE(t.refresh(false, changed));
    EXPECT_FALSE(changed);
  }
  EXPECT_EQ(t.reads(), 1u);  // no change signalled: not read again
  EXPECT_EQ(t.text(), first);
  ASSERT_TRUE(t.refresh(/*force=*/true, changed));
  EXPECT_EQ(t.reads(), 2u);
  clock.advance_ms(60'000);
  ASSERT_TRUE(t.refresh(false, changed));
  EXPECT_EQ(t.reads(), 3u);  // the periodic full read
  ASSERT_TRUE(t.refresh(false, changed));
  EXPECT_EQ(t.reads(), 3u);
  clock.set_ms(0);  // the wall clock stepped back
  ASSERT_TRUE(t.refresh(false, changed));
  EXPECT_EQ(t.reads(), 4u);
}

// A real mount-table change, in a private mount namespace of one thread
// (/proc/thread-self/mounts), so the host's table is never touched.
TEST(MountTable, ProcfsChangeIsSignalledAndReRead) {
  std::string dir = (std::filesystem::temp_directory_path() / ("llmon_mt_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  std::string skip, failure;
  uint64_t reads_unchanged = 0, reads_after_mount = 0, reads_after_umount = 0;
  bool changed_mount = false, changed_umount = false, listed = false, unlisted = false;
  std::thread th([&] {
    if (::unshare(CLONE_NEWNS) != 0) {
      skip = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
      return;
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      skip = std::string("mount --make-rprivate /: ") + std::strerror(errno);
      return;
    }
    base::ManualClock clock(1'000'000);
    MountTable t("/proc/thread-self/mounts", "/proc/thread-self/mounts", clock);
    bool changed = false;
    if (!t.refresh(false, changed) || !t.pollable()) {
      skip = "/proc/thread-self/mounts is not a procfs file here";
      return;
    }
    t.refresh(false, changed);
    reads_unchanged = t.reads();
    if (::mount("llmon-test", dir.c_str(), "tmpfs", 0, "size=4k") != 0) {
      skip = std::string("mount tmpfs: ") + std::strerror(errno);
      return;
    }
    if (!t.refresh(false, changed)) failure = "refresh after mount failed";
    changed_mount = changed;
    reads_after_mount = t.reads();
    listed = t.text().find("llmon-test " + dir + " tmpfs") != std::string_view::npos;
    ::umount(dir.c_str());
    if (!t.refresh(false, changed)) failure = "refresh after umount failed";
    changed_umount = changed;
    reads_after_umount = t.reads();
    unlisted = t.text().find("llmon-test") == std::string_view::npos;
  });
  th.join();
  std::filesystem::remove(dir);
  if (!skip.empty()) GTEST_SKIP() << skip;
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_EQ(reads_unchanged, 1u);
  EXPECT_TRUE(changed_mount);
  EXPECT_EQ(reads_after_mount, 2u);
  EXPECT_TRUE(listed);
  EXPECT_TRUE(changed_umount);
  EXPECT_EQ(reads_after_umount, 3u);
  EXPECT_TRUE(unlisted);
}

}  // namespace
}  // namespace llmon::collector
