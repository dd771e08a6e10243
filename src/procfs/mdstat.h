// Parser for /proc/mdstat with the rules of prometheus/procfs' mdstat.go (the
// version node_exporter 1.5 is built with): per array its activity state
// ("active", "inactive", or "recovering"/"checking"/"resyncing" while a sync
// line says so), active/total/failed/spare disks, size in blocks and blocks in
// sync (0 while the sync is PENDING or DELAYED). Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct MdStat {
  std::string name, state;
  int64_t disks_active = 0, disks_total = 0, disks_failed = 0, disks_down = 0, disks_spare = 0;
  int64_t blocks_total = 0, blocks_synced = 0;
};

// Errors name `what` (the file) and the line.
Expected<std::vector<MdStat>> parse_mdstat(std::string_view text, std::string_view what);

}  // namespace llmon::procfs
