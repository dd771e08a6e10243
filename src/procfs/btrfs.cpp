#include "procfs/btrfs.h"

#include "base/strings.h"

namespace llmon::procfs {

uint64_t btrfs_value(std::string_view text) {
  return base::parse_u64(base::trim(text)).value_or(0);
}

double btrfs_allocation_ratio(std::string_view mode, size_t devices) {
  const auto n = static_cast<double>(devices);
  if (mode == "single" || mode == "raid0") return 1;
  if (mode == "dup" || mode == "raid1" || mode == "raid10") return 2;
  if (mode == "raid5") return n / (n - 1);
  if (mode == "raid6") return n / (n - 2);
  return 0;
}

}  // namespace llmon::procfs
