// Parsers for OpenZFS's kstat files under /proc/spl/kstat/zfs, as
// node_exporter 1.5's zfs collector (zfs_linux.go) reads them. Pure; no I/O.
//   named kstats (arcstats, zil, ...):  a "name type data" header, then
//     "<name> <type> <value>" lines; type 4 (KSTAT_DATA_UINT64) lines are kept
//     (1.5 skips int64 ones such as arcstats' memory_available_bytes), and
//     their value must be a decimal uint64.
//   <pool>/io: a header line starting "nread" (>= 12 names), then lines of
//     as many decimal values.
//   <pool>/objset-0x<id>: a named kstat whose dataset_name line names the dataset.
//   <pool>/state: one word (ONLINE, DEGRADED, ...).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct KstatValue {
  std::string name;
  uint64_t value = 0;
};

// A named kstat without a "name type data" header is an error, as is a kept
// line whose value is not a uint64 (file and line named).
Expected<std::vector<KstatValue>> parse_zfs_kstat(std::string_view text, std::string_view file);

// The values of every line after the header, name by name.
Expected<std::vector<KstatValue>> parse_zfs_pool_io(std::string_view text, std::string_view file);

struct ZfsObjset {
  std::string dataset;
  std::vector<KstatValue> values;
};
Expected<ZfsObjset> parse_zfs_objset(std::string_view text, std::string_view file);

// The first line lower-cased ("online").
std::string parse_zfs_pool_state(std::string_view text);

}  // namespace llmon::procfs
