// GpuHistory: the last N values of each GPU's utilisation and memory use, as
// `llmon top` draws its sparklines from (standalone mode keeps only what it
// saw since it started; agent mode will fill it from the store). A GPU is
// known by its UUID, or by backend and index when it has none. An absent
// value is kept as NaN (a gap in the chart). Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "summary/gpu_summary.h"

namespace llmon::top {

// A fixed-capacity ring of samples, oldest first.
class Ring {
 public:
  explicit Ring(size_t capacity) : cap_(capacity ? capacity : 1) {}
  void push(double v);
  size_t size() const { return data_.size(); }
  size_t capacity() const { return cap_; }
  double at(size_t i) const { return data_[(head_ + i) % data_.size()]; }  // 0: oldest

 private:
  size_t cap_, head_ = 0;
  std::vector<double> data_;
};

struct GpuSeries {
  Ring util_pct, mem_used_pct;
  explicit GpuSeries(size_t cap) : util_pct(cap), mem_used_pct(cap) {}
};

class GpuHistory {
 public:
  explicit GpuHistory(size_t capacity = 300) : cap_(capacity) {}
  // One sample per GPU of the summary; GPUs gone from it keep their series.
  void record(const summary::GpuSummary& g);
  const GpuSeries* find(const summary::GpuRow& r) const;
  // Replaces a GPU's series (agent mode fills them from the store).
  void assign(const summary::GpuRow& r, GpuSeries s) { series_.insert_or_assign(key(r), std::move(s)); }
  void clear() { series_.clear(); }
  size_t capacity() const { return cap_; }

  static std::string key(const summary::GpuRow& r);

 private:
  size_t cap_;
  std::map<std::string, GpuSeries> series_;
};

}  // namespace llmon::top
