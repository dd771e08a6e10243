// launch_stats.h.
#include "trace/launch_stats.h"

#include <algorithm>

namespace llmon::trace {

LaunchIndex::LaunchIndex(const std::vector<Span>& launches) {
  by_corr_.reserve(launches.size());
  for (const Span& l : launches) by_corr_.emplace_back(l.correlation, &l);
  std::stable_sort(by_corr_.begin(), by_corr_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  by_corr_.erase(
      std::unique(by_corr_.begin(), by_corr_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
      by_corr_.end());
}

const Span* LaunchIndex::find(int64_t correlation) const {
  auto it = std::lower_bound(by_corr_.begin(), by_corr_.end(), correlation,
                             [](const auto& x, int64_t c) { return x.first < c; });
  return it != by_corr_.end() && it->first == correlation ? it->second : nullptr;
}

std::vector<LaunchRow> launch_rows(const std::vector<Span>& kernels, const LaunchIndex& launches) {
  std::vector<LaunchRow> rows;
  for (const Span& k : kernels) {
    if (k.correlation == kAbsent) continue;
    const Span* found = launches.find(k.correlation);
    if (!found) continue;
    const Span& l = *found;
    rows.push_back(LaunchRow{k.correlation, k.name, l.dur, k.dur, k.ts - l.end()});
  }
  return rows;
}

LaunchStats launch_stats(const std::vector<LaunchRow>& rows, const LaunchOptions& opts) {
  LaunchStats s;
  s.pairs = rows.size();
  std::vector<double> cpu, gpu, delay;
  cpu.reserve(rows.size());
  gpu.reserve(rows.size());
  delay.reserve(rows.size());
  for (const LaunchRow& r : rows) {
    cpu.push_back(static_cast<double>(r.cpu_dur));
    gpu.push_back(static_cast<double>(r.gpu_dur));
    delay.push_back(static_cast<double>(r.delay));
    if (r.cpu_dur <= opts.runtime_cutoff && r.gpu_dur < r.cpu_dur) ++s.short_kernels;
    if (r.cpu_dur > opts.runtime_cutoff) ++s.runtime_outliers;
    if (r.delay > opts.launch_delay_cutoff) ++s.delay_outliers;
  }
  for (auto* v : {&cpu, &gpu, &delay}) std::sort(v->begin(), v->end());
  s.cpu_p95 = quantile_sorted(cpu, 0.95);
  s.gpu_p95 = quantile_sorted(gpu, 0.95);
  s.delay_p95 = quantile_sorted(delay, 0.95);
  s.cpu_dur = describe_sorted(cpu);
  s.gpu_dur = describe_sorted(gpu);
  s.delay = describe_sorted(delay);
  s.worst.resize(std::min(opts.worst, rows.size()));
  std::partial_sort_copy(rows.begin(), rows.end(), s.worst.begin(), s.worst.end(),
                         [](const LaunchRow& a, const LaunchRow& b) {
                           return a.delay != b.delay ? a.delay > b.delay : a.correlation < b.correlation;
                         });
  return s;
}

}  // namespace llmon::trace
