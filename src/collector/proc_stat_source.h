// ProcStatSource: /proc/stat read and parsed at most once per collection
// cycle, shared by the collectors that need it (cpu, stat). The kernel builds
// /proc/stat by summing per-CPU counters, which is costly on large machines,
// so two readers per cycle would double that. A cycle is identified by its
// timestamp (SnapshotBuilder::timestamp_ms()). One collection thread only.
#pragma once

#include <memory>
#include <string>

#include "base/file_reader.h"
#include "base/status.h"
#include "procfs/stat.h"

namespace llmon::collector {

class ProcStatSource {
 public:
  explicit ProcStatSource(std::string path) : file_(std::move(path)) {}
  // The parsed file for the cycle stamped cycle_ts_ms; re-read when the
  // timestamp differs from the last call's. The pointer stays valid until the
  // next call with another timestamp.
  Expected<const procfs::ProcStat*> get(int64_t cycle_ts_ms);
  const std::string& path() const { return file_.path(); }

 private:
  base::CachedFile file_;
  procfs::ProcStat stat_;
  Status status_ = Status::error("not read yet");
  int64_t cycle_ts_ms_ = -1;
  bool have_ = false;
};

}  // namespace llmon::collector
