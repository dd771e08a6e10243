#include "top/history.h"

#include <cmath>

namespace llmon::top {

void Ring::push(double v) {
  if (data_.size() < cap_) {
    data_.push_back(v);
    return;
  }
  data_[head_] = v;
  head_ = (head_ + 1) % cap_;
}

std::string GpuHistory::key(const summary::GpuRow& r) {
  return r.uuid.empty() ? r.backend + "/" + r.index : r.uuid;
}

void GpuHistory::record(const summary::GpuSummary& g) {
  for (const summary::GpuRow& r : g.gpus) {
    auto it = series_.try_emplace(key(r), cap_).first;
    it->second.util_pct.push(r.util_pct ? *r.util_pct : NAN);
    double mem = NAN;
    if (r.mem_used_pct)
      mem = *r.mem_used_pct;
    else if (r.mem_used_bytes && r.mem_total_bytes && *r.mem_total_bytes > 0)
      mem = 100 * *r.mem_used_bytes / *r.mem_total_bytes;
    it->second.mem_used_pct.push(mem);
  }
}

const GpuSeries* GpuHistory::find(const summary::GpuRow& r) const {
  auto it = series_.find(key(r));
  return it == series_.end() ? nullptr : &it->second;
}

}  // namespace llmon::top
