// trace_text.h.
#include "app/trace_text.h"

#include <string>

namespace llmon::app {
namespace {

double ms(int64_t v, int64_t npu) {
  return static_cast<double>(v) * static_cast<double>(npu) / 1e6;
}
double us(double v, int64_t npu) {
  return v * static_cast<double>(npu) / 1e3;
}
double pct(int64_t part, int64_t whole) {
  return whole != 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) + 0.0 : 0;  // no -0.0
}
std::string shorten(const std::string& s, size_t n) {
  return s.size() > n ? s.substr(0, n - 3) + "..." : s;
}

void print_names(std::FILE* out, const char* title, const std::vector<trace::NameStat>& rows, int64_t npu,
                 bool kernels) {
  if (rows.empty()) return;
  std::fprintf(out, "  %s\n    %7s %6s %12s %13s  %s\n", title, "share", "count", kernels ? "sum ms" : "self ms",
               kernels ? "type" : "", "name");
  for (const auto& s : rows) {
    std::string cls = s.group.substr(s.group.find('/') == std::string::npos ? 0 : s.group.find('/') + 1);
    std::fprintf(out, "    %6.1f%% %6llu %12.3f %13s  %s%s\n", 100 * s.share, static_cast<unsigned long long>(s.count),
                 ms(s.sum, npu), kernels ? cls.c_str() : "", shorten(s.name, 90).c_str(),
                 s.flagged ? "   <-- above threshold" : "");
  }
}

void print_analyses(std::FILE* out, const trace::RankReport& r) {
  int64_t npu = r.ns_per_unit;
  if (r.overlap.comm > 0)
    std::fprintf(out, "  communication/computation overlap: %.2f%% of %.3f ms of communication\n", r.overlap.pct,
                 ms(r.overlap.comm, npu));
  else
    std::fprintf(out, "  communication/computation overlap: no communication kernels\n");
  if (!r.idle_by_stream.empty()) {
    std::fprintf(out, "  idle time by cause, per stream\n    %7s %8s %12s %10s %12s %8s\n", "stream", "kernels",
                 "idle ms", "host wait", "kernel wait", "other");
    for (const auto& s : r.idle_by_stream)
      std::fprintf(out, "    %7lld %8llu %12.3f %9.1f%% %11.1f%% %7.1f%%\n", static_cast<long long>(s.stream),
                   static_cast<unsigned long long>(s.kernels), ms(s.total(), npu), pct(s.host_wait, s.total()),
                   pct(s.kernel_wait, s.total()), pct(s.other, s.total()));
  }
  const auto& l = r.launches;
  if (l.pairs > 0) {
    std::fprintf(out,
                 "  kernel launches: %llu; CPU call mean %.1f us (p95 %.1f), GPU kernel mean %.1f us (p95 %.1f), "
                 "launch delay mean %.1f us (p95 %.1f, max %.1f)\n",
                 static_cast<unsigned long long>(l.pairs), us(l.cpu_dur.mean, npu), us(l.cpu_p95, npu),
                 us(l.gpu_dur.mean, npu), us(l.gpu_p95, npu), us(l.delay.mean, npu), us(l.delay_p95, npu),
                 us(l.delay.max, npu));
    std::fprintf(out,
                 "    short kernels (GPU time < CPU call <= 50 us) %llu, runtime outliers (call > 50 us) %llu, "
                 "launch-delay outliers (> 100 us) %llu\n",
                 static_cast<unsigned long long>(l.short_kernels), static_cast<unsigned long long>(l.runtime_outliers),
                 static_cast<unsigned long long>(l.delay_outliers));
    for (size_t i = 0; i < l.worst.size() && l.worst[i].delay > 0; ++i)
      std::fprintf(out, "    delay %10.1f us  correlation %lld  %s\n", us(static_cast<double>(l.worst[i].delay), npu),
                   static_cast<long long>(l.worst[i].correlation),
                   i < l.worst_names.size() ? shorten(l.worst_names[i], 80).c_str() : "");
  }
  if (!r.queues.empty()) {
    std::fprintf(out, "  stream queue lengths\n    %7s %8s %7s %5s %5s %5s %14s\n", "stream", "points", "mean", "p50",
                 "p75", "max", "ms at max");
    for (const auto& q : r.queues)
      std::fprintf(out, "    %7lld %8llu %7.2f %5.1f %5.1f %5lld %14.3f\n", static_cast<long long>(q.stream),
                   static_cast<unsigned long long>(q.length.count), q.length.mean, q.length.p50, q.length.p75,
                   static_cast<long long>(q.max), ms(q.time_at_max, npu));
  }
  if (!r.memory.empty()) {
    std::fprintf(out, "  memory bandwidth (GB/s, while copying)\n    %-15s %7s %12s %10s %9s %9s %9s\n", "kind", "ops",
                 "MB", "busy ms", "mean", "p50", "max");
    for (const auto& m : r.memory)
      std::fprintf(out, "    %-15s %7llu %12.3f %10.3f %9.3f %9.3f %9.3f\n", m.kind.c_str(),
                   static_cast<unsigned long long>(m.ops), static_cast<double>(m.bytes) / 1e6, ms(m.dur, npu),
                   m.gbps.mean, m.gbps.p50, m.gbps.max);
  }
}

}  // namespace

void print_rank_text(std::FILE* out, const trace::FileReport& f) {
  const trace::RankReport& r = f.report;
  int64_t npu = r.ns_per_unit;
  std::fprintf(out, "rank %lld  %s  (%llu events, %.1f MB)\n", static_cast<long long>(r.rank), f.path.c_str(),
               static_cast<unsigned long long>(f.data.events), static_cast<double>(f.bytes) / 1e6);
  for (const auto& [why, s] : f.data.skipped)
    std::fprintf(out, "  skipped %llu events: %s (first at byte %llu)\n", static_cast<unsigned long long>(s.count),
                 why.c_str(), static_cast<unsigned long long>(s.first_offset));
  if (r.kernels_total == 0) {
    std::fprintf(out, "  no GPU kernels (a CPU-only trace)\n");
  } else {
    const auto& t = r.temporal;
    std::fprintf(out, "  GPU kernels %llu of %llu%s\n", static_cast<unsigned long long>(r.kernels_used),
                 static_cast<unsigned long long>(r.kernels_total),
                 r.step_filter ? " (launched before the last ProfilerStep, as HTA)" : "");
    std::fprintf(out, "  temporal breakdown over %.3f ms: idle %.2f%%  compute %.2f%%  non-compute %.2f%%\n",
                 ms(t.kernel_time, npu), t.idle_pct, t.compute_pct, t.non_compute_pct);
    std::fprintf(out, "  kernel types:");
    for (const auto& g : r.by_type) std::fprintf(out, "  %s %.1f%%", g.name.c_str(), 100 * g.share);
    std::fprintf(out, "\n  kernel classes:");
    for (const auto& g : r.by_class) std::fprintf(out, "  %s %.1f%%", g.name.c_str(), 100 * g.share);
    std::fprintf(out, "\n");
    print_names(out, "top kernels (share of kernel time)", r.top_kernels, npu, true);
    print_analyses(out, r);
  }
  print_names(out, "top CPU operators (self time, share of operator time)", r.top_operators, npu, false);
  if (!r.steps.empty()) {
    std::fprintf(out, "  steps\n    %6s %12s %12s\n", "step", "dur ms", "GPU busy ms");
    for (const auto& s : r.steps)
      std::fprintf(out, "    %6lld %12.3f %12.3f\n", static_cast<long long>(s.number), ms(s.dur, npu),
                   ms(s.gpu_busy, npu));
  }
}

void print_ranks_table(std::FILE* out, const std::vector<trace::FileReport>& files, const trace::StragglerReport& s) {
  std::fprintf(out, "ranks\n  %6s %12s %7s %9s %12s %9s %12s %6s %13s %12s %12s %15s\n", "rank", "kernel ms", "idle",
               "compute", "non-compute", "overlap", "collectives", "last", "mean late us", "max late us", "launch last",
               "mean launch us");
  for (const auto& f : files) {
    const trace::RankReport& r = f.report;
    const trace::RankLateness* l = nullptr;
    for (const auto& x : s.ranks)
      if (x.rank == r.rank) l = &x;
    std::fprintf(out, "  %6lld %12.3f %6.2f%% %8.2f%% %11.2f%% %8.2f%% %12llu %6llu %13.1f %12.1f %12llu %15.1f\n",
                 static_cast<long long>(r.rank), ms(r.temporal.kernel_time, r.ns_per_unit), r.temporal.idle_pct,
                 r.temporal.compute_pct, r.temporal.non_compute_pct, r.overlap.pct,
                 static_cast<unsigned long long>(l ? l->collectives : 0),
                 static_cast<unsigned long long>(l ? l->last : 0), l ? l->late_mean_ns() / 1e3 : 0.0,
                 l ? static_cast<double>(l->late_max_ns) / 1e3 : 0.0,
                 static_cast<unsigned long long>(l ? l->launch_last : 0), l ? l->launch_late_mean_ns() / 1e3 : 0.0);
  }
  std::fprintf(out, "stragglers: %llu collectives matched across ranks\n",
               static_cast<unsigned long long>(s.collectives));
  if (s.worst.empty()) return;
  std::fprintf(out, "  latest starts\n    %12s %9s %14s %11s %6s  %s\n", "late us", "last rank", "launch late us",
               "launch last", "ranks", "collective (#n)");
  for (const auto& c : s.worst) {
    std::string launch = c.last_launch_rank < 0 ? "-" : std::to_string(c.last_launch_rank);
    std::string size = c.in_nelems < 0 ? "" : ", " + std::to_string(c.in_nelems) + " elements";
    std::fprintf(out, "    %12.1f %9lld %14.1f %11s %6zu  %s (#%llu%s)\n", static_cast<double>(c.late_ns) / 1e3,
                 static_cast<long long>(c.last_rank), static_cast<double>(c.launch_late_ns) / 1e3, launch.c_str(),
                 c.ranks, shorten(c.key, 80).c_str(), static_cast<unsigned long long>(c.occurrence), size.c_str());
  }
}

void print_diff_text(std::FILE* out, const trace::TraceDiff& d, const char* a, const char* b) {
  std::fprintf(out, "trace diff\n  A: %s (%zu rank%s)\n  B: %s (%zu rank%s)\n", a, d.ranks_a, d.ranks_a == 1 ? "" : "s",
               b, d.ranks_b, d.ranks_b == 1 ? "" : "s");
  auto table = [&](const char* title, const std::vector<trace::DiffRow>& rows, size_t names) {
    if (names)
      std::fprintf(out, "%s (%zu of %zu, by |delta|)\n", title, rows.size(), names);
    else
      std::fprintf(out, "%s\n", title);
    std::fprintf(out, "  %12s %7s %12s %7s %12s  %s\n", "A ms", "share", "B ms", "share", "delta ms", "name");
    for (const auto& r : rows)
      std::fprintf(out, "  %12.3f %6.1f%% %12.3f %6.1f%% %+12.3f  %s\n", static_cast<double>(r.a_ns) / 1e6,
                   100 * r.share_a, static_cast<double>(r.b_ns) / 1e6, 100 * r.share_b,
                   static_cast<double>(r.delta_ns()) / 1e6, shorten(r.name, 90).c_str());
  };
  table("temporal breakdown (share of kernel time)", d.temporal, 0);
  table("kernels (share of kernel time)", d.kernels, d.kernel_names);
  table("CPU operators (self time, share of operator time)", d.operators, d.operator_names);
}

}  // namespace llmon::app
