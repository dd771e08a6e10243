// report_json.h.
#include "trace/report_json.h"

namespace llmon::trace {
namespace {

double us(int64_t v, int64_t ns_per_unit) {
  return static_cast<double>(v) * static_cast<double>(ns_per_unit) / 1000.0;
}

nlohmann::json name_rows(const std::vector<NameStat>& rows, int64_t npu, bool kernels) {
  nlohmann::json a = nlohmann::json::array();
  for (const NameStat& s : rows) {
    nlohmann::json j{{"name", s.name},
                     {"count", s.count},
                     {kernels ? "sum_us" : "self_us", us(s.sum, npu)},
                     {"mean_us", s.mean * static_cast<double>(npu) / 1000.0},
                     {"max_us", us(s.max, npu)},
                     {"min_us", us(s.min, npu)},
                     {"share", s.share},
                     {"flagged", s.flagged}};
    if (kernels) {
      auto slash = s.group.find('/');
      j["type"] = s.group.substr(0, slash);
      j["class"] = slash == std::string::npos ? "" : s.group.substr(slash + 1);
    }
    a.push_back(std::move(j));
  }
  return a;
}

nlohmann::json group_rows(const std::vector<GroupStat>& rows, int64_t npu) {
  nlohmann::json a = nlohmann::json::array();
  for (const GroupStat& g : rows)
    a.push_back({{"name", g.name}, {"count", g.count}, {"sum_us", us(g.sum, npu)}, {"share", g.share}});
  return a;
}

}  // namespace

nlohmann::json rank_json(const FileReport& f) {
  const RankReport& r = f.report;
  const TraceHeader& h = f.data.header;
  int64_t npu = r.ns_per_unit;
  nlohmann::json j;
  j["file"] = f.path;
  j["rank"] = r.rank;
  j["world_size"] = h.world_size != kAbsent ? h.world_size : 1;
  j["backend"] = h.backend;
  j["devices"] = h.device_names;
  j["display_time_unit"] = h.display_time_unit;
  j["bytes"] = f.bytes;
  j["events"] = f.data.events;
  nlohmann::json cats = nlohmann::json::object();
  for (const auto& [c, n] : f.data.categories) cats[c] = n;
  j["categories"] = cats;
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [why, s] : f.data.skipped)
    skipped.push_back({{"reason", why}, {"count", s.count}, {"first_offset", s.first_offset}});
  j["skipped"] = skipped;
  j["kernels"] = {{"total", r.kernels_total},
                  {"analysed", r.kernels_used},
                  {"step_filter", r.step_filter},
                  {"names", r.kernel_names}};
  const Temporal& t = r.temporal;
  j["temporal"] = {
      {"kernel_time_us", us(t.kernel_time, npu)}, {"idle_us", us(t.idle, npu)}, {"compute_us", us(t.compute, npu)},
      {"non_compute_us", us(t.non_compute, npu)}, {"idle_pct", t.idle_pct},     {"compute_pct", t.compute_pct},
      {"non_compute_pct", t.non_compute_pct}};
  j["kernel_types"] = group_rows(r.by_type, npu);
  j["kernel_classes"] = group_rows(r.by_class, npu);
  j["top_kernels"] = name_rows(r.top_kernels, npu, true);
  j["top_operators"] = name_rows(r.top_operators, npu, false);
  j["operator_names"] = r.operator_names;
  nlohmann::json steps = nlohmann::json::array();
  for (const Step& s : r.steps)
    steps.push_back({{"step", s.number},
                     {"start_us", us(s.ts, npu)},
                     {"dur_us", us(s.dur, npu)},
                     {"gpu_busy_us", us(s.gpu_busy, npu)}});
  j["steps"] = steps;
  return j;
}

std::string report_json(const std::vector<FileReport>& files, double threshold) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const FileReport& f : files) ranks.push_back(rank_json(f));
  nlohmann::json j{{"schema", 1}, {"threshold", threshold}, {"ranks", ranks}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace llmon::trace
