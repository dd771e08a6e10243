#include "diagnose/diagnose.h"

#include <algorithm>

namespace llmon::diagnose {

namespace {

Summary summarize(Context& ctx) {
  Summary s;
  promql::Vector util =
      ctx.query("avg_over_time(" + ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"") + "[" + ctx.window() + "])");
  double sum = 0;
  for (const auto& u : util) {
    sum += u.v;
    double hours = ctx.window_hours();
    double price = gpu_price_for(ctx.options(), u.labels.get("modelName"));
    s.gpu_hours += hours;
    s.cost += hours * price;
    s.idle_cost += hours * price * std::clamp(1.0 - u.v / 100.0, 0.0, 1.0);
  }
  s.gpus = static_cast<int>(util.size());
  s.gpu_utilization_avg = util.empty() ? 0 : sum / static_cast<double>(util.size());
  return s;
}

// GPUs a finding is about ("3" or "0,1,2": a node-wide bottleneck covers many).
size_t scope(const Finding& f) {
  auto g = f.subject.find("gpu");
  if (g == f.subject.end() || g->second.empty()) return 0;
  return static_cast<size_t>(std::count(g->second.begin(), g->second.end(), ',')) + 1;
}

// A cause and the symptom it explains. When both are reported for the same
// subject, the cause is put right before the symptom (the fix is for the
// cause). `alone`: only when no other subject shows the symptom (one hot GPU
// is a straggler's cause; many hot GPUs are the node's cooling).
struct Explains {
  std::string_view cause, symptom, key;
  bool alone;
};
constexpr Explains kExplains[] = {
    {kind::kMemoryLeakGpu, kind::kGpuMemoryPressure, "gpu", false},
    {kind::kMemoryLeakHost, kind::kHostMemoryPressure, "", false},
    {kind::kStraggler, kind::kThermalThrottling, "gpu", true},
    {kind::kStraggler, kind::kPowerThrottling, "gpu", true},
    {kind::kStraggler, kind::kHardwareFault, "gpu", true},
};

bool same_subject(const Finding& a, const Finding& b, std::string_view key) {
  if (key.empty()) return true;
  auto x = a.subject.find(std::string(key));
  auto y = b.subject.find(std::string(key));
  return x != a.subject.end() && y != b.subject.end() && x->second == y->second;
}

void causes_first(std::vector<Finding>& fs) {
  for (const Explains& e : kExplains) {
    for (size_t s = 0; s < fs.size(); ++s) {
      if (fs[s].kind != e.symptom) continue;
      size_t others = 0;
      for (const auto& f : fs) others += f.kind == e.symptom && !same_subject(f, fs[s], e.key);
      if (e.alone && others > 0) continue;
      for (size_t c = s + 1; c < fs.size(); ++c) {
        if (fs[c].kind != e.cause || !same_subject(fs[c], fs[s], e.key)) continue;
        Finding moved = std::move(fs[c]);
        fs.erase(fs.begin() + static_cast<std::ptrdiff_t>(c));
        fs.insert(fs.begin() + static_cast<std::ptrdiff_t>(s), std::move(moved));
        break;
      }
    }
  }
}

}  // namespace

Diagnosis run(QuerySource& source, const Options& options, std::vector<std::unique_ptr<Detector>>& detectors) {
  Diagnosis d;
  d.options = options;
  Context ctx(source, d.options);
  for (auto& det : detectors) det->run(ctx, d.findings);
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (scope(a) != scope(b)) return scope(a) > scope(b);
    return a.confidence > b.confidence;
  });
  causes_first(d.findings);
  d.summary = summarize(ctx);
  d.errors = ctx.errors();
  return d;
}

Diagnosis run(QuerySource& source, const Options& options) {
  auto detectors = builtin_detectors();
  return run(source, options, detectors);
}

}  // namespace llmon::diagnose
