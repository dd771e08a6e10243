// btrfs collector (node_exporter 1.5 btrfs_linux.go). The sysfs part: per
// filesystem /sys/fs/btrfs/<uuid>/ (directories named *-*, sorted): info
// {label}, the global reserve, per block group type (data, metadata, system)
// the reserved bytes and per layout the used and allocated bytes and the
// allocation ratio, and each device's size (devices/<name>/size, in 512-byte
// sectors). As procfs 0.8: a missing or unparsable value file reads 0, a
// missing devices/ or allocation/<type>/ directory has no entries, except
// allocation/system, which fails the collector.
//
// The ioctl part (btrfs_ioctl.h): the btrfs mounts of <procfs>/1/mounts
// (else <procfs>/mounts) are asked for their devices; a filesystem that
// answered (matched by its fsid, the sysfs UUID without dashes) reports its
// devices from the ioctls instead: node_btrfs_device_size_bytes with
// btrfs_dev_uuid, node_btrfs_device_unused_bytes and
// node_btrfs_device_errors_total{type}. One that did not (no permission, a
// fixture tree) keeps the sysfs form, as node_exporter falls back. A mount
// table that cannot be read only costs the ioctl part.
#include "procfs/btrfs.h"

#include <string>
#include <string_view>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "base/strings.h"
#include "collector/btrfs_ioctl.h"
#include "collector/builtin.h"
#include "collector/filesystem.h"
#include "procfs/mounts.h"

namespace llmon::collector {
namespace {

using model::MetricType;

constexpr std::string_view kBlockGroupTypes[] = {"data", "metadata", "system"};

struct Layout {
  std::string type, mode;
  uint64_t used = 0, total = 0;
  double ratio = 0;
};

struct Filesystem {
  std::string uuid, label;
  uint64_t global_rsv_size = 0;
  uint64_t reserved[3] = {};
  std::vector<Layout> layouts;
  std::vector<std::pair<std::string, uint64_t>> devices;
  const std::vector<BtrfsDevice>* ioctl_devices = nullptr;  // the ioctls answered
};

// The file's trimmed text; "" when it does not exist.
Expected<std::string> read_optional(const std::string& path) {
  auto text = base::read_trimmed(path);
  if (!text && base::stat_kind(path) == base::EntryKind::kMissing) return std::string();
  return text;
}

Expected<uint64_t> read_value(const std::string& path) {
  auto text = read_optional(path);
  if (!text) return text.status();
  return procfs::btrfs_value(*text);
}

class BtrfsCollector final : public Collector {
 public:
  BtrfsCollector(const CollectorContext& ctx, std::unique_ptr<BtrfsIoctls> ioctls)
      : fs_(ctx.fs),
        clock_(ctx.clock ? ctx.clock : &system_clock_),
        dir_(ctx.fs.sys("fs/btrfs")),
        ioctls_(std::move(ioctls)),
        table_(ctx.fs.proc("1/mounts"), ctx.fs.proc("mounts"), *clock_) {}

  Status collect(model::SnapshotBuilder& out) override {
    if (!base::list_dir(dir_, entries_)) return Status::ok();  // no btrfs module: nothing, as the empty glob
    filesystems_.clear();
    for (const auto& e : entries_) {
      if (e.name.find('-') == std::string::npos) continue;  // "features"
      Filesystem fs;
      if (Status s = read_filesystem(dir_ + "/" + e.name, e.name, fs); !s) return s;
      filesystems_.push_back(std::move(fs));
    }
    if (filesystems_.empty()) return Status::ok();
    query_ioctls();
    auto info = out.family("node_btrfs_info", "Filesystem information", MetricType::kGauge, {"uuid", "label"});
    for (const auto& fs : filesystems_) info.add({fs.uuid, fs.label}, 1);
    auto rsv = out.family("node_btrfs_global_rsv_size_bytes", "Size of global reserve.", MetricType::kGauge, {"uuid"});
    for (const auto& fs : filesystems_) rsv.add({fs.uuid}, static_cast<double>(fs.global_rsv_size));
    auto reserved = out.family("node_btrfs_reserved_bytes", "Amount of space reserved for a data type",
                               MetricType::kGauge, {"uuid", "block_group_type"});
    for (const auto& fs : filesystems_)
      for (size_t t = 0; t < 3; ++t) reserved.add({fs.uuid, kBlockGroupTypes[t]}, static_cast<double>(fs.reserved[t]));
    layout_family(out, "node_btrfs_used_bytes", "Amount of used space by a layout/data type",
                  [](const Layout& l) { return static_cast<double>(l.used); });
    layout_family(out, "node_btrfs_size_bytes", "Amount of space allocated for a layout/data type",
                  [](const Layout& l) { return static_cast<double>(l.total); });
    layout_family(out, "node_btrfs_allocation_ratio", "Data allocation ratio for a layout/data type",
                  [](const Layout& l) { return l.ratio; });
    constexpr std::string_view kSizeHelp = "Size of a device that is part of the filesystem.";
    auto devices = out.family("node_btrfs_device_size_bytes", kSizeHelp, MetricType::kGauge, {"uuid", "device"});
    for (const auto& fs : filesystems_)
      if (!fs.ioctl_devices)
        for (const auto& [name, size] : fs.devices) devices.add({fs.uuid, name}, static_cast<double>(size));
    // The ioctl form: node_exporter's label set has btrfs_dev_uuid as well.
    auto sized =
        out.family("node_btrfs_device_size_bytes", kSizeHelp, MetricType::kGauge, {"uuid", "device", "btrfs_dev_uuid"});
    for_ioctl_devices([&](const Filesystem& fs, const BtrfsDevice& d) {
      sized.add({fs.uuid, d.name, d.uuid}, static_cast<double>(d.total_bytes));
    });
    auto unused =
        out.family("node_btrfs_device_unused_bytes", "Unused bytes unused on a device that is part of the filesystem.",
                   MetricType::kGauge, {"uuid", "device", "btrfs_dev_uuid"});
    for_ioctl_devices([&](const Filesystem& fs, const BtrfsDevice& d) {
      unused.add({fs.uuid, d.name, d.uuid}, static_cast<double>(d.total_bytes - d.bytes_used));
    });
    auto errors = out.family("node_btrfs_device_errors_total", "Errors reported for the device", MetricType::kCounter,
                             {"uuid", "type", "device", "btrfs_dev_uuid"});
    for_ioctl_devices([&](const Filesystem& fs, const BtrfsDevice& d) {
      const std::pair<std::string_view, uint64_t> kinds[] = {{"write", d.errors.write},
                                                             {"read", d.errors.read},
                                                             {"flush", d.errors.flush},
                                                             {"corruption", d.errors.corruption},
                                                             {"generation", d.errors.generation}};
      for (const auto& [type, n] : kinds) errors.add({fs.uuid, type, d.name, d.uuid}, static_cast<double>(n));
    });
    return Status::ok();
  }

 private:
  template <typename Value>
  void layout_family(model::SnapshotBuilder& out, std::string_view name, std::string_view help, Value value) {
    auto f = out.family(name, help, MetricType::kGauge, {"uuid", "block_group_type", "mode"});
    for (const auto& fs : filesystems_)
      for (const auto& l : fs.layouts) f.add({fs.uuid, l.type, l.mode}, value(l));
  }

  template <typename Fn>
  void for_ioctl_devices(Fn fn) const {
    for (const auto& fs : filesystems_)
      if (fs.ioctl_devices)
        for (const auto& d : *fs.ioctl_devices) fn(fs, d);
  }

  // Asks the btrfs mounts for their devices and points each sysfs
  // filesystem at its answer. Any failure here leaves the sysfs form.
  void query_ioctls() {
    ioctl_devices_.clear();
    bool changed = false;
    if (!table_.refresh(!parsed_, changed)) return;
    if (changed || !parsed_) {
      mounts_.clear();
      auto entries = procfs::parse_mounts(table_.text());
      parsed_ = static_cast<bool>(entries);
      if (!entries) return;
      for (const auto& e : *entries)
        if (e.fs_type == "btrfs") mounts_.push_back({e.device, fs_.rooted(fs_.strip_root(e.mount_point))});
    }
    if (mounts_.empty()) return;
    ioctl_devices_ = query_btrfs_devices(*ioctls_, mounts_);
    for (auto& fs : filesystems_) {
      std::string key = fs.uuid;
      std::erase(key, '-');
      auto it = ioctl_devices_.find(key);
      if (it != ioctl_devices_.end()) fs.ioctl_devices = &it->second;
    }
  }

  Status read_filesystem(const std::string& dir, const std::string& name, Filesystem& fs) {
    if (base::list_dir(dir + "/devices", names_)) {
      for (const auto& d : names_) {
        auto size = read_value(dir + "/devices/" + d.name + "/size");
        if (!size) return size.status();
        fs.devices.emplace_back(d.name, procfs::kBtrfsSectorSize * *size);
      }
    }
    auto label = read_optional(dir + "/label");
    if (!label) return label.status();
    fs.label = *label;
    auto uuid = read_optional(dir + "/metadata_uuid");
    if (!uuid) return uuid.status();
    fs.uuid = uuid->empty() ? name : *uuid;
    auto rsv = read_value(dir + "/allocation/global_rsv_size");
    if (!rsv) return rsv.status();
    fs.global_rsv_size = *rsv;
    for (size_t t = 0; t < 3; ++t) {
      const std::string type_dir = dir + "/allocation/" + std::string(kBlockGroupTypes[t]);
      auto reserved = read_value(type_dir + "/bytes_reserved");
      if (!reserved) return reserved.status();
      fs.reserved[t] = *reserved;
      if (Status ls = base::list_dir(type_dir, names_); !ls) {
        if (kBlockGroupTypes[t] == "system") return ls;  // procfs keeps only this one's error
        continue;
      }
      for (const auto& e : names_) {
        if (e.kind != base::EntryKind::kDir) continue;
        Layout l{std::string(kBlockGroupTypes[t]), e.name, 0, 0,
                 procfs::btrfs_allocation_ratio(e.name, fs.devices.size())};
        auto used = read_value(type_dir + "/" + e.name + "/used_bytes");
        auto total = read_value(type_dir + "/" + e.name + "/total_bytes");
        if (!used) return used.status();
        if (!total) return total.status();
        l.used = *used, l.total = *total;
        fs.layouts.push_back(std::move(l));
      }
    }
    return Status::ok();
  }

  procfs::Fs fs_;
  base::SystemClock system_clock_;
  const base::Clock* clock_;
  std::string dir_;
  std::unique_ptr<BtrfsIoctls> ioctls_;
  MountTable table_;
  bool parsed_ = false;
  std::vector<BtrfsMountPoint> mounts_;
  std::map<std::string, std::vector<BtrfsDevice>> ioctl_devices_;
  std::vector<base::DirEntry> entries_, names_;
  std::vector<Filesystem> filesystems_;
};

}  // namespace

std::unique_ptr<Collector> make_btrfs_with(const CollectorContext& ctx, std::unique_ptr<BtrfsIoctls> ioctls) {
  return std::make_unique<BtrfsCollector>(ctx, std::move(ioctls));
}

std::unique_ptr<Collector> make_btrfs(const CollectorContext& ctx) {
  return make_btrfs_with(ctx, make_kernel_btrfs_ioctls());
}

}  // namespace llmon::collector
