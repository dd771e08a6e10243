// Parser for /proc/<pid>/mounts (fstab(5) format: "device mountpoint fstype
// options dump pass"), the mount table node_exporter 1.5 reads for the
// filesystem collector. Pure. Not /proc/<pid>/mountinfo.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct MountEntry {
  std::string device;
  std::string mount_point;  // with \040 (space) and \011 (tab) decoded
  std::string fs_type;
  std::string options;
  bool read_only() const;  // "ro" among the comma-separated options
};

// A line with fewer than 4 fields is an error naming the line (node_exporter
// fails the collector the same way); blank lines are skipped. Like
// node_exporter, only the mount point is unescaped, and only \040 and \011.
Expected<std::vector<MountEntry>> parse_mounts(std::string_view text);

}  // namespace llmon::procfs
