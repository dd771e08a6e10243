// `llmon trace analyze FILE|DIR [--json] [--html=OUT]` (docs/trace.md): each rank's
// PyTorch profiler trace parsed as a stream and analysed like HTA: temporal
// breakdown, kernel types and classes, top kernels and operators (flagged
// at or above --trace.threshold percent, default 30), steps; --html also writes
// the --json document as a self-contained page (trace/report_html.h). Exit
// codes: 0 ok, 1 a file did not parse or the page could not be written, 2 usage errors.
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.h"
#include "base/atomic_file.h"
#include "config/flag_names.h"
#include "trace/load.h"
#include "trace/report_html.h"
#include "trace/report_json.h"
#include "trace/trace_file.h"

namespace llmon::app {
namespace {

int usage(std::FILE* err, const std::string& why) {
  std::fprintf(
      err,
      "llmon trace: %s\n"
      "usage: llmon trace analyze FILE|DIR [--json] [--html=OUT.html] [--trace.threshold=30] [--trace.top=10]\n"
      "       llmon trace capture [--pid=P | --job=J | --gpu=N] [--duration-ms=500 | --iterations=N]\n"
      "       (Kineto/torch.profiler .json or .json.gz; a DIR of rank files)\n",
      why.c_str());
  return 2;
}

double ms(int64_t v, int64_t npu) {
  return static_cast<double>(v) * static_cast<double>(npu) / 1e6;
}

void print_names(std::FILE* out, const char* title, const std::vector<trace::NameStat>& rows, int64_t npu,
                 bool kernels) {
  if (rows.empty()) return;
  std::fprintf(out, "  %s\n    %7s %6s %12s %13s  %s\n", title, "share", "count", kernels ? "sum ms" : "self ms",
               kernels ? "type" : "", "name");
  for (const auto& s : rows) {
    std::string name = s.name.size() > 90 ? s.name.substr(0, 87) + "..." : s.name;
    std::string cls = s.group.substr(s.group.find('/') == std::string::npos ? 0 : s.group.find('/') + 1);
    std::fprintf(out, "    %6.1f%% %6llu %12.3f %13s  %s%s\n", 100 * s.share, static_cast<unsigned long long>(s.count),
                 ms(s.sum, npu), kernels ? cls.c_str() : "", name.c_str(), s.flagged ? "   <-- above threshold" : "");
  }
}

void print_text(std::FILE* out, const trace::FileReport& f) {
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
  }
  print_names(out, "top CPU operators (self time, share of operator time)", r.top_operators, npu, false);
  if (!r.steps.empty()) {
    std::fprintf(out, "  steps\n    %6s %12s %12s\n", "step", "dur ms", "GPU busy ms");
    for (const auto& s : r.steps)
      std::fprintf(out, "    %6lld %12.3f %12.3f\n", static_cast<long long>(s.number), ms(s.dur, npu),
                   ms(s.gpu_busy, npu));
  }
}

}  // namespace

int run_trace(const config::Settings& s, std::FILE* out, std::FILE* err) {
  const auto& pos = s.positional;
  if (!pos.empty() && pos[0] == "capture") return run_trace_capture(s, out, err);
  if (pos.empty() || pos[0] != "analyze")
    return usage(err, pos.empty() ? "missing subcommand" : "unknown subcommand \"" + pos[0] + "\"");
  if (pos.size() != 2) return usage(err, "analyze takes one FILE or DIR");
  auto files = trace::list_trace_files(pos[1]);
  if (!files) return usage(err, files.error());
  trace::AnalyzeOptions opts;
  int64_t threshold = s.get(config::flag::kTraceThreshold), top = s.get(config::flag::kTraceTop);
  if (threshold < 0 || threshold > 100) return usage(err, "--trace.threshold must be a percentage from 0 to 100");
  if (top < 1) return usage(err, "--trace.top must be at least 1");
  opts.flag_share = static_cast<double>(threshold) / 100.0;
  opts.top_n = static_cast<size_t>(top);
  std::vector<trace::FileReport> reports;
  int rc = 0;
  for (size_t i = 0; i < files->size(); ++i) {
    const std::string& path = (*files)[i];
    trace::ParseStats stats;
    auto data = trace::load_trace_file(path, &stats);
    if (!data) {
      std::fprintf(err, "llmon trace: %s\n", data.error().c_str());
      rc = 1;
      continue;
    }
    trace::FileReport f;
    f.path = path;
    f.bytes = stats.bytes;
    f.report = trace::analyze(*data, opts);
    if (data->header.rank == trace::kAbsent) f.report.rank = static_cast<int64_t>(i);
    f.data = std::move(*data);
    f.data.kernels = {};  // the report is made: keep only counts and the header
    f.data.cpu_ops = {};
    f.data.annotations = {};
    f.data.launch_ts = {};
    f.data.names = {};
    reports.push_back(std::move(f));
  }
  std::string html_path = s.get(config::flag::kHtml);
  if (!html_path.empty()) {
    Status st =
        base::write_file_atomic(html_path, trace::report_html(trace::report_json(reports, opts.flag_share)), 0644);
    if (!st) {
      std::fprintf(err, "llmon trace: --html: %s\n", st.message().c_str());
      rc = 1;
    }
  }
  if (s.get(config::flag::kJson)) {
    std::fputs(trace::report_json(reports, opts.flag_share).c_str(), out);
  } else {
    for (size_t i = 0; i < reports.size(); ++i) {
      if (i) std::fprintf(out, "\n");
      print_text(out, reports[i]);
    }
  }
  return rc;
}

}  // namespace llmon::app
