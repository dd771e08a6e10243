// /sys/class/scsi_tape/st<N>/stats/ as prometheus/procfs (sysfs/class_scsitape.go)
// reads it for node_exporter 1.5's tapestats collector: which class entries are
// tape devices (^st[0-9]+$; the nst*/st*a variants are left out) and the stats
// files (Go's ParseUint(s, 0, 64) of the trimmed text). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace llmon::procfs {

struct TapeStat {
  std::string_view file;    // in stats/
  std::string_view metric;  // family name after "node_tape_"
  std::string_view help;
  bool counter;      // else a gauge (io_now)
  bool nanoseconds;  // reported in seconds (times 1e-9, as node_exporter)
};

std::span<const TapeStat> tape_stats();
bool is_scsi_tape_device(std::string_view name);
std::optional<uint64_t> parse_tape_stat(std::string_view text);

}  // namespace llmon::procfs
