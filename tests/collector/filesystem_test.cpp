#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "collector/builtin.h"
#include "collector/filesystem.h"
#include "collector_test_util.h"

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

TEST(FilesystemCollector, HungMountDoesNotStallTheCycle) {
  auto hang = std::make_shared<Hang>();
  auto ctx = fixture_context();
  ctx.options["collector.filesystem.mount-timeout"] = "300ms";
  auto c = make_filesystem_with(ctx, hanging_statvfs(hang, "/data"), /*handoff_ms=*/20);
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
  ctx.options["collector.filesystem.mount-timeout"] = "100ms";
  {
    auto c = make_filesystem_with(ctx, hanging_statvfs(hang, "/boot"), 20);
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

}  // namespace
}  // namespace llmon::collector
