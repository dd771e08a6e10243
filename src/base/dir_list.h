// Directory helpers for walking sysfs class directories: sorted listings,
// symlink targets and resolved paths, as values (Status/Expected), never
// exceptions. Stateless; safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace llmon::base {

enum class EntryKind { kFile, kDir, kSymlink, kOther, kUnknown, kMissing };

struct DirEntry {
  std::string name;
  EntryKind kind = EntryKind::kUnknown;  // from d_type: a symlink is not followed
};

// Entries of path except "." and "..", sorted by name (byte order, like Go's
// os.ReadDir). Reuses out's storage.
Status list_dir(const std::string& path, std::vector<DirEntry>& out);
// The target of a symlink as stored (not resolved).
Expected<std::string> read_link(const std::string& path);
// The absolute path with every symlink resolved (realpath(3)).
Expected<std::string> real_path(const std::string& path);
// stat(2) following symlinks: what the path finally is (kMissing on error).
EntryKind stat_kind(const std::string& path);

}  // namespace llmon::base
