// /sys/class/powercap RAPL zones as prometheus/procfs (sysfs/class_powercap.go)
// names them for node_exporter 1.5's rapl collector: a zone's name file
// "package-1" is zone "package" index 1; a name without a numeric suffix
// ("dram", "core") takes the count of earlier zones of that name as index.
// Pure; the collector reads the files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct RaplZoneName {
  std::string name;
  int64_t index = 0;
};

// Names zones in directory order (procfs' getIndexAndName).
class RaplZoneNamer {
 public:
  // `content` is the zone's name file.
  RaplZoneName next(std::string_view content);

 private:
  std::map<std::string, int64_t, std::less<>> uses_;
};

// A powercap counter file (energy_uj, max_energy_range_uj): trimmed base-10
// uint64 (procfs util.ReadUintFromFile). The error names `what` (the file).
Expected<uint64_t> parse_powercap_uint(std::string_view text, std::string_view what);

// node_exporter's SanitizeMetricName: every run of characters outside
// [0-9A-Za-z_], with the underscores around it, becomes one '_'.
std::string sanitize_metric_name(std::string_view s);

}  // namespace llmon::procfs
