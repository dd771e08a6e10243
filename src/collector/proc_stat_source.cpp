#include "collector/proc_stat_source.h"

namespace llmon::collector {

Expected<const procfs::ProcStat*> ProcStatSource::get(int64_t cycle_ts_ms) {
  if (!have_ || cycle_ts_ms != cycle_ts_ms_) {
    have_ = true;
    cycle_ts_ms_ = cycle_ts_ms;
    auto text = file_.read();
    status_ = text ? procfs::parse_stat(*text, stat_, file_.path()) : text.status();
  }
  if (!status_) return status_;
  return &stat_;
}

}  // namespace llmon::collector
