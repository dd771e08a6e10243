// CpuDirs: the sorted names of the cpu[0-9]* entries of a sysfs directory
// (normally /sys/devices/system/cpu), like Go's filepath.Glob("cpu[0-9]*")
// that node_exporter runs every scrape. Listing a sysfs directory costs
// several times a small read, so refresh() first re-reads the directory's
// "present" and "online" lists (kept open) and lists the entries again only
// when either changed: CPUs appear or vanish only by hot-add, and per-CPU files
// come and go only by onlining/offlining, both of which change those lists.
// Without readable lists (odd fixture trees) every call lists and reports a
// change. No allocation in the steady state. One owner; not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/file_reader.h"

namespace llmon::collector {

class CpuDirs {
 public:
  explicit CpuDirs(std::string dir);

  // True when the CPU set or their online state may have changed since the
  // last call (the first call counts as a change); names() is then re-read
  // and callers should rebuild their per-CPU state. A missing directory lists
  // nothing, as a glob would.
  bool refresh();
  const std::vector<std::string>& names() const { return names_; }  // "cpu0", "cpu1", "cpu10", ...
  const std::string& dir() const { return dir_; }

 private:
  bool list_changed_input();
  void list();

  std::string dir_;
  base::CachedFile present_, online_;
  std::string present_text_, online_text_;
  std::vector<std::string> names_;
  std::vector<char> buf_;
  bool first_ = true;
};

}  // namespace llmon::collector
