// Fs: the roots every host read goes through (--path.procfs, --path.sysfs,
// --path.rootfs), so tests point collectors at fixture trees. Immutable value;
// safe to share. This header knows paths only, not metric names.
#pragma once

#include <string>
#include <string_view>

namespace llmon::procfs {

struct Fs {
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::string root = "/";

  std::string proc(std::string_view rel) const { return join(proc_root, rel); }
  std::string sys(std::string_view rel) const { return join(sys_root, rel); }
  // A path on the host's root filesystem (for statvfs of mount points).
  std::string rooted(std::string_view abs_path) const;
  // Reverse of rooted(): strips the rootfs prefix from a mount point.
  std::string strip_root(std::string_view path) const;

  static std::string join(std::string_view a, std::string_view b);
};

}  // namespace llmon::procfs
