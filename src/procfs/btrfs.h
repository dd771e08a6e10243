// Pure pieces of node_exporter 1.5's btrfs collector (procfs 0.8
// btrfs/get.go), which reads /sys/fs/btrfs/<uuid>/ file by file: how a value
// file's text becomes a number, and a block-group layout's allocation ratio.
#pragma once

#include <cstdint>
#include <string_view>

namespace llmon::procfs {

// A sysfs value as procfs reads it: trimmed, a decimal uint64, else 0.
uint64_t btrfs_value(std::string_view text);

// Bytes on disk per byte stored for a layout directory name ("single",
// "dup", "raid1", "raid5", ...) on a filesystem of `devices` devices, as
// procfs 0.8 computes it (0 for a layout it does not know, e.g. raid1c3).
double btrfs_allocation_ratio(std::string_view mode, size_t devices);

// Linux counts block device sizes in 512-byte sectors.
inline constexpr uint64_t kBtrfsSectorSize = 512;

}  // namespace llmon::procfs
