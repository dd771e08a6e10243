// The cpu collector's --collector.cpu.info part (node_exporter 1.5
// cpu_linux.go updateInfo): node_cpu_info{package,core,cpu,vendor,family,
// model,model_name,microcode,stepping,cachesize} per /proc/cpuinfo block, and,
// from the first CPU's flags and bugs, node_cpu_flag_info{flag} and
// node_cpu_bug_info{bug} for the words --collector.cpu.info.flags-include /
// bugs-include match (unanchored search, as Go's MatchString; empty: none).
// Either include flag switches the info on, as node_exporter does.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/file_reader.h"
#include "collector/collector.h"
#include "procfs/cpuinfo.h"

namespace llmon::collector {

class CpuInfoWriter {
 public:
  explicit CpuInfoWriter(const CollectorContext& ctx);
  bool enabled() const { return enabled_; }
  // Reads and writes; an unreadable or malformed /proc/cpuinfo is an error.
  Status write(model::SnapshotBuilder& out);

 private:
  bool enabled_ = false;
  base::CachedFile file_;  // one record per CPU: many pages on a large host
  std::optional<std::regex> flags_include_, bugs_include_;
  std::vector<procfs::CpuInfo> cpus_;
};

}  // namespace llmon::collector
