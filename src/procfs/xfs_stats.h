// Parser for XFS runtime statistics, /sys/fs/xfs/<device>/stats/stats (and
// /proc/fs/xfs/stat), as node_exporter 1.5 reads them through procfs 0.8
// (xfs/parse.go): "<key> <values...>" lines. The lines procfs maps must have
// its value count (vnodes 7 or 8); every line's values must be uint32 (xpc's
// uint64), else an error naming the file and line. Lines with fewer than two
// fields are skipped, and so are the values of lines procfs does not map
// (push_ail, abtb2, ...), once they parse. Pure; no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct XfsStats {
  std::array<uint32_t, 4> extent_alloc{}, abt{}, bmbt{}, dir{}, attr{};
  std::array<uint32_t, 7> blk_map{}, ig{};
  std::array<uint32_t, 3> trans{}, icluster{};
  std::array<uint32_t, 5> log{};
  std::array<uint32_t, 2> rw{};  // the kernel's order: write calls, read calls
  std::array<uint32_t, 8> vnodes{};
  std::array<uint32_t, 9> buf{};
  std::array<uint64_t, 3> xpc{};  // bytes flushed, written, read

  // The uint32 values of the line with this key (empty for an unknown key).
  std::span<const uint32_t> line(std::string_view key) const;
};

Expected<XfsStats> parse_xfs_stats(std::string_view text, std::string_view file = "stats");

}  // namespace llmon::procfs
