// `llmon trace analyze FILE|DIR [--json] [--html=OUT]` and `llmon trace diff A B [--json]`
// (docs/trace.md): each rank's PyTorch profiler trace parsed as a stream and
// analysed like HTA (temporal breakdown, kernel types and classes, top
// kernels and operators flagged at or above --trace.threshold percent, steps,
// overlap, idle by cause, launches, queues, memory bandwidth); a directory
// also gets the per-rank table and stragglers; diff compares two traces or
// directories; --html also writes the --json document as a self-contained
// page (trace/report_html.h). Exit codes: 0 ok, 1 a file did not parse or
// the page could not be written, 2 usage errors.
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/trace_text.h"
#include "base/atomic_file.h"
#include "config/flag_names.h"
#include "trace/load.h"
#include "trace/report_html.h"
#include "trace/report_json.h"
#include "trace/trace_file.h"

namespace llmon::app {
namespace {

int usage(std::FILE* err, const std::string& why) {
  std::fprintf(err,
               "llmon trace: %s\n"
               "usage: llmon trace analyze FILE|DIR [--json] [--html=OUT.html] [--trace.threshold=30] [--trace.top=10]\n"
               "       llmon trace diff A B [--json] [--trace.top=10]   (A, B: a FILE or a DIR of ranks each)\n"
               "       llmon trace capture [--pid=P | --job=J | --gpu=N] [--duration-ms=500 | --iterations=N]\n"
               "       (Kineto/torch.profiler .json or .json.gz; a DIR of rank files)\n",
               why.c_str());
  return 2;
}

// Every rank file of path analysed; a file that does not parse is reported
// on err and sets *rc to 1. Only the header, counts and the report are kept.
std::vector<trace::FileReport> load_reports(const std::vector<std::string>& files, const trace::AnalyzeOptions& opts,
                                            std::FILE* err, int* rc) {
  std::vector<trace::FileReport> reports;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i];
    trace::ParseStats stats;
    auto data = trace::load_trace_file(path, &stats);
    if (!data) {
      std::fprintf(err, "llmon trace: %s\n", data.error().c_str());
      *rc = 1;
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
    f.data.launches = {};
    f.data.kernel_args = {};
    f.data.device_memory = {};
    f.data.names = {};
    reports.push_back(std::move(f));
  }
  return reports;
}

int run_diff(const config::Settings& s, const trace::AnalyzeOptions& opts, std::FILE* out, std::FILE* err) {
  const auto& pos = s.positional;
  if (pos.size() != 3) return usage(err, "diff takes two traces (FILE or DIR each)");
  int rc = 0;
  std::vector<trace::DiffSideRank> side[2];
  for (int i = 0; i < 2; ++i) {
    auto files = trace::list_trace_files(pos[static_cast<size_t>(i) + 1]);
    if (!files) return usage(err, files.error());
    for (const auto& f : load_reports(*files, opts, err, &rc)) side[i].push_back(trace::diff_side_of(f.report));
    if (side[i].empty()) {
      std::fprintf(err, "llmon trace: %s: no rank could be read\n", pos[static_cast<size_t>(i) + 1].c_str());
      return 1;
    }
  }
  trace::TraceDiff d = trace::diff_traces(side[0], side[1], opts.top_n);
  if (s.get(config::flag::kJson))
    std::fputs((trace::diff_json(d).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), out);
  else
    print_diff_text(out, d, pos[1].c_str(), pos[2].c_str());
  return rc;
}

}  // namespace

int run_trace(const config::Settings& s, std::FILE* out, std::FILE* err) {
  const auto& pos = s.positional;
  if (!pos.empty() && pos[0] == "capture") return run_trace_capture(s, out, err);
  if (pos.empty() || (pos[0] != "analyze" && pos[0] != "diff"))
    return usage(err, pos.empty() ? "missing subcommand" : "unknown subcommand \"" + pos[0] + "\"");
  trace::AnalyzeOptions opts;
  int64_t threshold = s.get(config::flag::kTraceThreshold), top = s.get(config::flag::kTraceTop);
  if (threshold < 0 || threshold > 100) return usage(err, "--trace.threshold must be a percentage from 0 to 100");
  if (top < 1) return usage(err, "--trace.top must be at least 1");
  opts.flag_share = static_cast<double>(threshold) / 100.0;
  opts.top_n = static_cast<size_t>(top);
  if (pos[0] == "diff") return run_diff(s, opts, out, err);
  if (pos.size() != 2) return usage(err, "analyze takes one FILE or DIR");
  auto files = trace::list_trace_files(pos[1]);
  if (!files) return usage(err, files.error());
  int rc = 0;
  std::vector<trace::FileReport> reports = load_reports(*files, opts, err, &rc);
  trace::StragglerReport stragglers;
  bool multi = reports.size() > 1;
  if (multi) {
    std::vector<trace::RankCollectives> ranks;
    for (const auto& f : reports) ranks.push_back(trace::collectives_of(f.report));
    stragglers = trace::find_stragglers(ranks, opts.top_n);
  }
  if (const std::string& html_path = s.get(config::flag::kHtml); !html_path.empty()) {
    Status st = base::write_file_atomic(
        html_path, trace::report_html(trace::report_json(reports, opts.flag_share, multi ? &stragglers : nullptr)),
        0644);
    if (!st) {
      std::fprintf(err, "llmon trace: --html: %s\n", st.message().c_str());
      rc = 1;
    }
  }
  if (s.get(config::flag::kJson)) {
    std::fputs(trace::report_json(reports, opts.flag_share, multi ? &stragglers : nullptr).c_str(), out);
  } else {
    for (size_t i = 0; i < reports.size(); ++i) {
      if (i) std::fprintf(out, "\n");
      print_rank_text(out, reports[i]);
    }
    if (multi) {
      std::fprintf(out, "\n");
      print_ranks_table(out, reports, stragglers);
    }
  }
  return rc;
}

}  // namespace llmon::app
