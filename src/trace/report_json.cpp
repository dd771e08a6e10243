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

// describe() in the output unit: scale converts trace units (1 for counts).
nlohmann::json summary_json(const Summary& s, double scale) {
  return {{"count", s.count},     {"mean", s.mean * scale}, {"std", s.std * scale}, {"min", s.min * scale},
          {"p25", s.p25 * scale}, {"p50", s.p50 * scale},   {"p75", s.p75 * scale}, {"max", s.max * scale}};
}

double ratio(int64_t part, int64_t whole) {
  return whole != 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

void analyses_json(nlohmann::json& j, const RankReport& r) {
  int64_t npu = r.ns_per_unit;
  double sc = static_cast<double>(npu) / 1000.0;
  j["overlap"] = {
      {"comm_us", us(r.overlap.comm, npu)}, {"overlapped_us", us(r.overlap.overlapped, npu)}, {"pct", r.overlap.pct}};
  nlohmann::json idle = nlohmann::json::array();
  for (const StreamIdle& s : r.idle_by_stream)
    idle.push_back(
        {{"stream", s.stream},
         {"kernels", s.kernels},
         {"idle_us", us(s.total(), npu)},
         {"host_wait_us", us(s.host_wait, npu)},
         {"kernel_wait_us", us(s.kernel_wait, npu)},
         {"other_us", us(s.other, npu)},
         {"host_wait_ratio", ratio(s.host_wait, s.total())},
         {"kernel_wait_ratio", ratio(s.kernel_wait, s.total())},
         {"other_ratio", ratio(s.other, s.total())},
         {"gaps", {{"host_wait", s.host_wait_gaps}, {"kernel_wait", s.kernel_wait_gaps}, {"other", s.other_gaps}}},
         {"gap_us",
          {{"host_wait", summary_json(s.host_wait_stats, sc)},
           {"kernel_wait", summary_json(s.kernel_wait_stats, sc)},
           {"other", summary_json(s.other_stats, sc)}}}});
  j["idle_by_stream"] = idle;
  const LaunchStats& l = r.launches;
  nlohmann::json worst = nlohmann::json::array();
  for (size_t i = 0; i < l.worst.size(); ++i) {
    const LaunchRow& w = l.worst[i];
    worst.push_back({{"correlation", w.correlation},
                     {"kernel", i < l.worst_names.size() ? l.worst_names[i] : std::string()},
                     {"cpu_us", us(w.cpu_dur, npu)},
                     {"gpu_us", us(w.gpu_dur, npu)},
                     {"delay_us", us(w.delay, npu)}});
  }
  nlohmann::json cpu = summary_json(l.cpu_dur, sc), gpu = summary_json(l.gpu_dur, sc),
                 delay = summary_json(l.delay, sc);
  cpu["p95"] = l.cpu_p95 * sc;
  gpu["p95"] = l.gpu_p95 * sc;
  delay["p95"] = l.delay_p95 * sc;
  j["launches"] = {{"pairs", l.pairs},
                   {"cpu_us", cpu},
                   {"gpu_us", gpu},
                   {"delay_us", delay},
                   {"short_kernels", l.short_kernels},
                   {"runtime_outliers", l.runtime_outliers},
                   {"delay_outliers", l.delay_outliers},
                   {"worst", worst}};
  nlohmann::json queues = nlohmann::json::array();
  for (const StreamQueue& q : r.queues) {
    nlohmann::json e = summary_json(q.length, 1);
    e["stream"] = q.stream;
    e["time_at_max_us"] = us(q.time_at_max, npu);
    queues.push_back(std::move(e));
  }
  j["queues"] = queues;
  nlohmann::json mem = nlohmann::json::array();
  for (const MemoryKind& m : r.memory)
    mem.push_back({{"kind", m.kind},
                   {"ops", m.ops},
                   {"ops_with_bandwidth", m.ops_with_bandwidth},
                   {"bytes", m.bytes},
                   {"dur_us", us(m.dur, npu)},
                   {"gbps", summary_json(m.gbps, 1)}});
  j["memory_bandwidth"] = mem;
}

}  // namespace

nlohmann::json stragglers_json(const StragglerReport& s) {
  nlohmann::json worst = nlohmann::json::array();
  for (const LateCollective& c : s.worst)
    worst.push_back({{"key", c.key},
                     {"occurrence", c.occurrence},
                     {"ranks", c.ranks},
                     {"last_rank", c.last_rank},
                     {"late_us", static_cast<double>(c.late_ns) / 1000.0},
                     {"in_msg_nelems", c.in_nelems},
                     {"last_launch_rank", c.last_launch_rank},
                     {"launch_late_us", static_cast<double>(c.launch_late_ns) / 1000.0}});
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankLateness& r : s.ranks)
    ranks.push_back({{"rank", r.rank},
                     {"collectives", r.collectives},
                     {"last", r.last},
                     {"late_mean_us", r.late_mean_ns() / 1000.0},
                     {"late_max_us", static_cast<double>(r.late_max_ns) / 1000.0},
                     {"launched", r.launched},
                     {"launch_last", r.launch_last},
                     {"launch_late_mean_us", r.launch_late_mean_ns() / 1000.0},
                     {"launch_late_max_us", static_cast<double>(r.launch_late_max_ns) / 1000.0}});
  return {{"collectives", s.collectives}, {"worst", worst}, {"ranks", ranks}};
}

nlohmann::json diff_json(const TraceDiff& d) {
  auto rows = [](const std::vector<DiffRow>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const DiffRow& r : v)
      a.push_back({{"name", r.name},
                   {"a_us", static_cast<double>(r.a_ns) / 1000.0},
                   {"b_us", static_cast<double>(r.b_ns) / 1000.0},
                   {"delta_us", static_cast<double>(r.delta_ns()) / 1000.0},
                   {"a_share", r.share_a},
                   {"b_share", r.share_b},
                   {"a_count", r.count_a},
                   {"b_count", r.count_b}});
    return a;
  };
  return {{"schema", 1},
          {"ranks", {{"a", d.ranks_a}, {"b", d.ranks_b}}},
          {"temporal", rows(d.temporal)},
          {"kernels", rows(d.kernels)},
          {"kernel_names", d.kernel_names},
          {"operators", rows(d.operators)},
          {"operator_names", d.operator_names}};
}

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
  analyses_json(j, r);
  return j;
}

std::string report_json(const std::vector<FileReport>& files, double threshold, const StragglerReport* stragglers) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const FileReport& f : files) ranks.push_back(rank_json(f));
  nlohmann::json j{{"schema", 1}, {"threshold", threshold}, {"ranks", ranks}};
  if (stragglers) j["stragglers"] = stragglers_json(*stragglers);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace llmon::trace
