// The btrfs collector's ioctl half (node_exporter 1.5 btrfs_linux.go
// getIoctlStats, through dennwc/btrfs): each mounted btrfs filesystem is
// opened at its mount point and asked BTRFS_IOC_FS_INFO, then for every
// device id up to max_id BTRFS_IOC_DEV_INFO and BTRFS_IOC_GET_DEV_STATS.
// Where that works the collector exports node_btrfs_device_unused_bytes and
// node_btrfs_device_errors_total{type} and labels node_btrfs_device_size_bytes
// with btrfs_dev_uuid; where it fails the sysfs form stays.
//
// The kernel calls sit behind BtrfsIoctls so tests fake them;
// query_btrfs_devices() is node_exporter's walk over the mount table, pure
// over that interface.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collector/collector.h"

namespace llmon::collector {

using BtrfsUuid = std::array<uint8_t, 16>;

struct BtrfsFsInfo {
  uint64_t max_id = 0, num_devices = 0;
  BtrfsUuid fsid{};
};

struct BtrfsDevInfo {
  BtrfsUuid uuid{};
  uint64_t bytes_used = 0, total_bytes = 0;
  std::string path;  // the block device, e.g. /dev/sda2
};

// BTRFS_DEV_STAT_* in the kernel's order.
struct BtrfsDevStats {
  uint64_t write = 0, read = 0, flush = 0, corruption = 0, generation = 0;
};

class BtrfsIoctls {
 public:
  virtual ~BtrfsIoctls() = default;
  // Opens the filesystem at a mount point: a handle >= 0, or -errno (the
  // real one refuses, as dennwc/btrfs does, a path that is not the root of
  // a btrfs subvolume: a bind mount of a subdirectory).
  virtual int open(const std::string& mount_point) = 0;
  virtual void close(int handle) = 0;
  // Each answers 0 or the errno of the failed ioctl (ENODEV: no device with
  // that id, ids have gaps).
  virtual int fs_info(int handle, BtrfsFsInfo& out) = 0;
  virtual int dev_info(int handle, uint64_t devid, BtrfsDevInfo& out) = 0;
  virtual int dev_stats(int handle, uint64_t devid, BtrfsDevStats& out) = 0;
};

std::unique_ptr<BtrfsIoctls> make_kernel_btrfs_ioctls();

// The btrfs collector over given ioctls (make_btrfs uses the kernel's).
std::unique_ptr<Collector> make_btrfs_with(const CollectorContext& ctx, std::unique_ptr<BtrfsIoctls> ioctls);

// One device as the collector labels it.
struct BtrfsDevice {
  std::string name;  // the last element of the device path ("sda2")
  std::string uuid;  // dashed, lower-case hex
  uint64_t total_bytes = 0, bytes_used = 0;
  BtrfsDevStats errors;
};

struct BtrfsMountPoint {
  std::string device;  // the mount table's first field
  std::string path;    // the mount point under --path.rootfs
};

// The mounts in table order (btrfs ones only); returns the devices of each
// filesystem that answered, keyed by its fsid as 32 hex digits without
// dashes (what node_exporter matches the sysfs UUID against). As 1.5: a
// mount whose open or FS_INFO fails, or whose device walk hits an error
// other than ENODEV, is skipped (another mount of the same filesystem may
// work); once a filesystem answered, further mounts of its device or fsid
// are not asked again; the walk stops after num_devices devices.
std::map<std::string, std::vector<BtrfsDevice>> query_btrfs_devices(BtrfsIoctls& ioctls,
                                                                    const std::vector<BtrfsMountPoint>& mounts);

// "0973088b-8199-403e-8555-e7b1e52b6a59" (dennwc's UUID.String()).
std::string btrfs_uuid_dashed(const BtrfsUuid& u);
// 32 lower-case hex digits (dennwc's FSID.String()).
std::string btrfs_uuid_hex(const BtrfsUuid& u);

}  // namespace llmon::collector
