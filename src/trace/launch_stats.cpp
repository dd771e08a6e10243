// launch_stats.h.
#include "trace/launch_stats.h"

#include <algorithm>

namespace llmon::trace {

LaunchIndex index_launches(const std::vector<Span>& launches) {
  LaunchIndex idx;
  idx.reserve(launches.size());
  for (const Span& l : launches) idx.emplace(l.correlation, &l);
  return idx;
}

std::vector<LaunchRow> launch_rows(const std::vector<Span>& kernels, const LaunchIndex& launches) {
  std::vector<LaunchRow> rows;
  for (const Span& k : kernels) {
    if (k.correlation == kAbsent) continue;
    auto it = launches.find(k.correlation);
    if (it == launches.end()) continue;
    const Span& l = *it->second;
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
  auto p95 = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return quantile_sorted(v, 0.95);
  };
  s.cpu_p95 = p95(cpu);
  s.gpu_p95 = p95(gpu);
  s.delay_p95 = p95(delay);
  s.cpu_dur = describe(std::move(cpu));
  s.gpu_dur = describe(std::move(gpu));
  s.delay = describe(std::move(delay));
  std::vector<LaunchRow> w = rows;
  size_t n = std::min(opts.worst, w.size());
  std::partial_sort(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n), w.end(),
                    [](const LaunchRow& a, const LaunchRow& b) {
                      return a.delay != b.delay ? a.delay > b.delay : a.correlation < b.correlation;
                    });
  w.resize(n);
  s.worst = std::move(w);
  return s;
}

}  // namespace llmon::trace
