// Parser for /proc/<pid>/mountinfo (proc(5): "36 35 98:0 /mnt1 /mnt2
// rw,noatime master:1 - ext3 /dev/root rw,errors=continue"), as procfs 0.8's
// parseMountInfo reads it for node_exporter 1.5's mountstats collector. Pure.
// Not /proc/<pid>/mounts (procfs/mounts.h), which has no super options.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct MountInfo {
  int64_t mount_id = 0, parent_id = 0;
  std::string major_minor, root, mount_point;  // as the kernel escapes them (\040 for a space)
  std::string options;                         // per-mount options, comma separated
  std::vector<std::string> optional_fields;    // "shared:2", "master:7"
  std::string fs_type, source;
  std::string super_options;  // per-superblock options, comma separated
};

// The value of `key` among comma-separated options as procfs' option map
// holds it: "" for an option without '=', else the text between the first and
// a second '='; the last occurrence wins; "" when absent (*found says which).
std::string_view mount_option(std::string_view options, std::string_view key, bool* found = nullptr);

// Every line is one mount; as procfs, the line is split on single spaces and
// must have at least 10 fields with "-" fourth from the end (so a mount point
// or source with a raw space, which the kernel never writes, is an error), and
// numeric mount and parent IDs. Errors name `file` and the line.
Expected<std::vector<MountInfo>> parse_mountinfo(std::string_view text, std::string_view file);

}  // namespace llmon::procfs
