#include "collector/btrfs_ioctl.h"

#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace llmon::collector {
namespace {

// The root directory of every btrfs subvolume has this inode number.
constexpr ino_t kBtrfsFirstFreeObjectId = 256;

class KernelBtrfsIoctls final : public BtrfsIoctls {
 public:
  int open(const std::string& mount_point) override {
    struct stat st {};
    if (::stat(mount_point.c_str(), &st) != 0) return -errno;
    if (st.st_ino != kBtrfsFirstFreeObjectId || !S_ISDIR(st.st_mode)) return -ENOTDIR;
    struct statfs sf {};
    if (::statfs(mount_point.c_str(), &sf) != 0) return -errno;
    if (static_cast<unsigned long>(sf.f_type) != BTRFS_SUPER_MAGIC) return -EINVAL;
    const int fd = ::open(mount_point.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
  }

  void close(int handle) override { ::close(handle); }

  int fs_info(int handle, BtrfsFsInfo& out) override {
    btrfs_ioctl_fs_info_args a;
    std::memset(&a, 0, sizeof a);
    if (::ioctl(handle, BTRFS_IOC_FS_INFO, &a) != 0) return errno;
    out.max_id = a.max_id;
    out.num_devices = a.num_devices;
    std::memcpy(out.fsid.data(), a.fsid, out.fsid.size());
    return 0;
  }

  int dev_info(int handle, uint64_t devid, BtrfsDevInfo& out) override {
    auto a = std::make_unique<btrfs_ioctl_dev_info_args>();  // 4 KiB and more: not on the stack
    std::memset(a.get(), 0, sizeof *a);
    a->devid = devid;
    if (::ioctl(handle, BTRFS_IOC_DEV_INFO, a.get()) != 0) return errno;
    std::memcpy(out.uuid.data(), a->uuid, out.uuid.size());
    out.bytes_used = a->bytes_used;
    out.total_bytes = a->total_bytes;
    const auto* p = reinterpret_cast<const char*>(a->path);
    out.path.assign(p, ::strnlen(p, sizeof a->path));
    return 0;
  }

  int dev_stats(int handle, uint64_t devid, BtrfsDevStats& out) override {
    btrfs_ioctl_get_dev_stats a;
    std::memset(&a, 0, sizeof a);
    a.devid = devid;
    a.nr_items = BTRFS_DEV_STAT_VALUES_MAX;
    if (::ioctl(handle, BTRFS_IOC_GET_DEV_STATS, &a) != 0) return errno;
    // Items past what the kernel answered read 0, as in dennwc/btrfs.
    uint64_t v[BTRFS_DEV_STAT_VALUES_MAX] = {};
    for (uint64_t i = 0; i < a.nr_items && i < BTRFS_DEV_STAT_VALUES_MAX; ++i) v[i] = a.values[i];
    out = {v[BTRFS_DEV_STAT_WRITE_ERRS], v[BTRFS_DEV_STAT_READ_ERRS], v[BTRFS_DEV_STAT_FLUSH_ERRS],
           v[BTRFS_DEV_STAT_CORRUPTION_ERRS], v[BTRFS_DEV_STAT_GENERATION_ERRS]};
    return 0;
  }
};

// The devices of one open filesystem; false when the walk failed.
bool walk_devices(BtrfsIoctls& ioctls, int handle, const BtrfsFsInfo& info, std::vector<BtrfsDevice>& out) {
  for (uint64_t id = 0; id <= info.max_id; ++id) {
    BtrfsDevInfo di;
    if (int e = ioctls.dev_info(handle, id, di); e != 0) {
      if (e == ENODEV) continue;  // ids neither start at 0 nor are contiguous
      return false;
    }
    BtrfsDevice d;
    if (ioctls.dev_stats(handle, id, d.errors) != 0) return false;
    const size_t slash = di.path.rfind('/');
    d.name = slash == std::string::npos ? di.path : di.path.substr(slash + 1);
    d.uuid = btrfs_uuid_dashed(di.uuid);
    d.total_bytes = di.total_bytes;
    d.bytes_used = di.bytes_used;
    out.push_back(std::move(d));
    if (out.size() == info.num_devices) break;
  }
  return true;
}

}  // namespace

std::unique_ptr<BtrfsIoctls> make_kernel_btrfs_ioctls() {
  return std::make_unique<KernelBtrfsIoctls>();
}

std::map<std::string, std::vector<BtrfsDevice>> query_btrfs_devices(BtrfsIoctls& ioctls,
                                                                    const std::vector<BtrfsMountPoint>& mounts) {
  std::map<std::string, std::vector<BtrfsDevice>> out;
  std::set<std::string> devices_done;
  for (const auto& m : mounts) {
    if (devices_done.count(m.device)) continue;
    const int h = ioctls.open(m.path);
    if (h < 0) continue;
    BtrfsFsInfo info;
    std::vector<BtrfsDevice> devices;
    bool ok = ioctls.fs_info(h, info) == 0;
    std::string fsid;
    if (ok) {
      fsid = btrfs_uuid_hex(info.fsid);
      ok = !out.count(fsid) && walk_devices(ioctls, h, info, devices);
    }
    ioctls.close(h);
    if (!ok) continue;
    devices_done.insert(m.device);
    out.emplace(std::move(fsid), std::move(devices));
  }
  return out;
}

std::string btrfs_uuid_hex(const BtrfsUuid& u) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(32);
  for (uint8_t b : u) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

std::string btrfs_uuid_dashed(const BtrfsUuid& u) {
  std::string h = btrfs_uuid_hex(u);
  for (size_t pos : {8, 13, 18, 23}) h.insert(pos, 1, '-');
  return h;
}

}  // namespace llmon::collector
