// The btrfs collector's ioctl half over a fake BtrfsIoctls: node_exporter
// 1.5's walk (ENODEV gaps, stop at num_devices, failures skip the mount, one
// answer per device and fsid) and the families it turns into. The same
// against the kernel and node_exporter: tests/integration/btrfs_ioctl_test.sh.
#include "collector/btrfs_ioctl.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>

#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using model::MetricType;
using testing::collect_once;
using testing::expect_family;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

BtrfsUuid uuid_from(std::string_view dashed) {
  BtrfsUuid u{};
  std::string hex(dashed);
  std::erase(hex, '-');
  for (size_t i = 0; i < 16; ++i) u[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return u;
}

struct FakeFs {
  int open_errno = 0, fs_info_errno = 0;
  BtrfsFsInfo info;
  std::map<uint64_t, BtrfsDevInfo> devices;  // others answer ENODEV
  std::map<uint64_t, int> stats_errno;
  std::map<uint64_t, BtrfsDevStats> stats;
};

FakeFs failing_open(int e) {
  FakeFs f;
  f.open_errno = e;
  return f;
}

class FakeIoctls final : public BtrfsIoctls {
 public:
  std::map<std::string, FakeFs> by_path;
  std::vector<std::string> opened;
  std::vector<uint64_t> dev_info_asked;
  int open_handles = 0;

  int open(const std::string& p) override {
    opened.push_back(p);
    auto it = by_path.find(p);
    if (it == by_path.end()) return -ENOENT;
    if (it->second.open_errno) return -it->second.open_errno;
    handles_.push_back(&it->second);
    ++open_handles;
    return static_cast<int>(handles_.size() - 1);
  }
  void close(int) override { --open_handles; }
  int fs_info(int h, BtrfsFsInfo& out) override {
    if (handles_[h]->fs_info_errno) return handles_[h]->fs_info_errno;
    out = handles_[h]->info;
    return 0;
  }
  int dev_info(int h, uint64_t id, BtrfsDevInfo& out) override {
    dev_info_asked.push_back(id);
    auto it = handles_[h]->devices.find(id);
    if (it == handles_[h]->devices.end()) return ENODEV;
    out = it->second;
    return 0;
  }
  int dev_stats(int h, uint64_t id, BtrfsDevStats& out) override {
    if (auto e = handles_[h]->stats_errno.find(id); e != handles_[h]->stats_errno.end()) return e->second;
    out = handles_[h]->stats[id];
    return 0;
  }

 private:
  std::vector<FakeFs*> handles_;
};

constexpr std::string_view kFs1 = "0b1c2d3e-0000-4000-8000-000000000001";
constexpr std::string_view kFs2 = "0b1c2d3e-0000-4000-8000-000000000002";
constexpr std::string_view kDevA = "0973088b-8199-403e-8555-e7b1e52b6a59";
constexpr std::string_view kDevB = "2140c2b4-ebbc-4aaf-9a88-f0d154e86d05";

TEST(BtrfsIoctl, UuidsAreFormattedAsNodeExporterMatchesThem) {
  EXPECT_EQ(btrfs_uuid_dashed(uuid_from(kDevA)), kDevA);
  EXPECT_EQ(btrfs_uuid_hex(uuid_from(kFs1)), "0b1c2d3e000040008000000000000001");
}

TEST(BtrfsIoctl, TheWalkSkipsGapsStopsAtNumDevicesAndSkipsFailedMounts) {
  FakeIoctls io;
  FakeFs fs;
  fs.info = {9, 2, uuid_from(kFs1)};
  fs.devices[1] = {uuid_from(kDevA), 100, 1000, "/dev/sda2"};
  fs.devices[3] = {uuid_from(kDevB), 300, 3000, "/dev/mapper/crypt"};
  fs.devices[4] = {uuid_from(kDevB), 0, 1, "/dev/never-asked"};
  fs.stats[3] = {1, 2, 3, 4, 5};
  io.by_path["/mnt/sub"] = failing_open(ENOTDIR);  // a bind mount of a subdirectory
  io.by_path["/mnt/a"] = fs;
  io.by_path["/mnt/a-again"] = fs;
  auto got = query_btrfs_devices(io, {{"/dev/sda2", "/mnt/sub"},
                                      {"/dev/sda2", "/mnt/a"},
                                      {"/dev/sda2", "/mnt/a-again"},
                                      {"/dev/sdz", "/mnt/missing"}});
  ASSERT_EQ(got.size(), 1u);
  const auto& devs = got.at("0b1c2d3e000040008000000000000001");
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[0].name, "sda2");
  EXPECT_EQ(devs[0].uuid, kDevA);
  EXPECT_EQ(devs[1].name, "crypt");
  EXPECT_EQ(devs[1].errors.corruption, 4u);
  EXPECT_EQ(devs[1].errors.generation, 5u);
  EXPECT_EQ(io.dev_info_asked, (std::vector<uint64_t>{0, 1, 2, 3}));  // stopped at num_devices
  // The mount of a device already answered is not opened again.
  EXPECT_EQ(io.opened, (std::vector<std::string>{"/mnt/sub", "/mnt/a", "/mnt/missing"}));
  EXPECT_EQ(io.open_handles, 0);
}

TEST(BtrfsIoctl, AFilesystemWhoseWalkFailsIsTriedAtItsNextMount) {
  FakeIoctls io;
  FakeFs denied;
  denied.info = {1, 1, uuid_from(kFs1)};
  denied.devices[1] = {uuid_from(kDevA), 1, 2, "/dev/sda2"};
  denied.stats_errno[1] = EPERM;
  FakeFs ok = denied;
  ok.stats_errno.clear();
  io.by_path["/a"] = denied;
  FakeFs not_btrfs;
  not_btrfs.fs_info_errno = ENOTTY;
  io.by_path["/b"] = not_btrfs;
  io.by_path["/c"] = ok;
  auto got = query_btrfs_devices(io, {{"/dev/sda2", "/a"}, {"/dev/sda2", "/b"}, {"/dev/sda2", "/c"}});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.begin()->second.size(), 1u);
  EXPECT_EQ(io.open_handles, 0);
}

// Two filesystems in sysfs and the mount table: the one whose ioctls answer
// reports node_exporter's ioctl form, the other keeps the sysfs form.
TEST(BtrfsIoctl, TheCollectorUsesTheIoctlFormWhereItAnswered) {
  TempFixture fx({});
  for (std::string_view u : {kFs1, kFs2}) {
    const std::string d = "sys/fs/btrfs/" + std::string(u);
    fx.write(d + "/allocation/system/single/used_bytes", "1\n");
    fx.write(d + "/devices/sda2/size", "8\n");
  }
  fx.write("proc/1/mounts",
           "/dev/sda2 /data btrfs rw,relatime 0 0\n"
           "/dev/sdb1 /scratch btrfs rw 0 0\n"
           "/dev/sdc1 /home ext4 rw 0 0\n");
  auto io = std::make_unique<FakeIoctls>();
  FakeIoctls* fake = io.get();
  FakeFs fs;
  fs.info = {1, 1, uuid_from(kFs1)};
  fs.devices[1] = {uuid_from(kDevA), 400, 1000, "/dev/sda2"};
  fs.stats[1] = {0, 7, 0, 0, 0};
  fake->by_path["/data"] = fs;
  fake->by_path["/scratch"] = failing_open(EACCES);
  auto ctx = fx.context();
  ctx.fs.root = "/";  // mount points as the table names them
  auto c = make_btrfs_with(ctx, std::move(io));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(fake->opened, (std::vector<std::string>{"/data", "/scratch"}));  // not the ext4 mount
  expect_family(snap, "node_btrfs_device_unused_bytes", MetricType::kGauge,
                "Unused bytes unused on a device that is part of the filesystem.");
  expect_family(snap, "node_btrfs_device_errors_total", MetricType::kCounter, "Errors reported for the device");
  const std::pair<std::string_view, std::string_view> ioctl_dev[] = {
      {"uuid", kFs1}, {"device", "sda2"}, {"btrfs_dev_uuid", kDevA}};
  EXPECT_EQ(value_of(snap, "node_btrfs_device_size_bytes", {ioctl_dev[0], ioctl_dev[1], ioctl_dev[2]}), 1000);
  EXPECT_EQ(value_of(snap, "node_btrfs_device_unused_bytes", {ioctl_dev[0], ioctl_dev[1], ioctl_dev[2]}), 600);
  EXPECT_EQ(
      value_of(snap, "node_btrfs_device_errors_total", {ioctl_dev[0], {"type", "read"}, ioctl_dev[1], ioctl_dev[2]}),
      7);
  EXPECT_EQ(series_count(snap, "node_btrfs_device_errors_total"), 5u);
  // The filesystem that did not answer: the sysfs size (8 sectors), no btrfs_dev_uuid.
  EXPECT_EQ(value_of(snap, "node_btrfs_device_size_bytes", {{"uuid", kFs2}, {"device", "sda2"}}), 4096);
  EXPECT_EQ(series_count(snap, "node_btrfs_device_size_bytes"), 2u);
  EXPECT_EQ(series_count(snap, "node_btrfs_device_unused_bytes"), 1u);
}

}  // namespace
}  // namespace llmon::collector
