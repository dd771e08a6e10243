#include "collector/cpu_info.h"

#include "collector/option_regex.h"
#include "collector/options.h"

namespace llmon::collector {
namespace {

std::optional<std::regex> include_regex(const CollectorContext& ctx, base::RegexFlag f) {
  if (ctx.option(f).empty()) return std::nullopt;
  std::regex re;
  std::string err = compile_option_regex(ctx, f, re);
  if (!err.empty()) {
    if (ctx.log) ctx.log->warn("cpu: ignoring the include filter", {{"err", err}});
    return std::nullopt;
  }
  return re;
}

void write_words(model::SnapshotBuilder& out, const char* name, const char* help, const char* label,
                 const std::vector<std::string>& words, const std::optional<std::regex>& include) {
  if (!include) return;
  auto fam = out.family(name, help, model::MetricType::kGauge, {label});
  for (const std::string& w : words)
    if (std::regex_search(w, *include)) fam.add({w}, 1);
}

}  // namespace

CpuInfoWriter::CpuInfoWriter(const CollectorContext& ctx)
    : file_(ctx.fs.proc("cpuinfo")),
      flags_include_(include_regex(ctx, flag::kCollectorCpuInfoFlagsInclude)),
      bugs_include_(include_regex(ctx, flag::kCollectorCpuInfoBugsInclude)) {
  enabled_ = ctx.option(flag::kCollectorCpuInfo) || !ctx.option(flag::kCollectorCpuInfoFlagsInclude).empty() ||
             !ctx.option(flag::kCollectorCpuInfoBugsInclude).empty();
}

Status CpuInfoWriter::write(model::SnapshotBuilder& out) {
  auto text = file_.read();
  if (!text) return text.status();
  if (Status s = procfs::parse_cpuinfo(*text, file_.path(), cpus_); !s) return s;
  auto info = out.family(
      "node_cpu_info", "CPU information from /proc/cpuinfo.", model::MetricType::kGauge,
      {"package", "core", "cpu", "vendor", "family", "model", "model_name", "microcode", "stepping", "cachesize"});
  for (const procfs::CpuInfo& c : cpus_) {
    std::string cpu = std::to_string(c.processor);
    info.add({c.physical_id, c.core_id, cpu, c.vendor_id, c.cpu_family, c.model, c.model_name, c.microcode, c.stepping,
              c.cache_size},
             1);
  }
  if (cpus_.empty()) return Status::ok();
  write_words(out, "node_cpu_flag_info",
              "The `flags` field of CPU information from /proc/cpuinfo taken from the first core.", "flag",
              cpus_[0].flags, flags_include_);
  write_words(out, "node_cpu_bug_info",
              "The `bugs` field of CPU information from /proc/cpuinfo taken from the first core.", "bug", cpus_[0].bugs,
              bugs_include_);
  return Status::ok();
}

}  // namespace llmon::collector
