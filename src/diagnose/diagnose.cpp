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

}  // namespace

Diagnosis run(QuerySource& source, const Options& options, std::vector<std::unique_ptr<Detector>>& detectors) {
  Diagnosis d;
  d.options = options;
  Context ctx(source, d.options);
  for (auto& det : detectors) det->run(ctx, d.findings);
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.confidence > b.confidence;
  });
  d.summary = summarize(ctx);
  d.errors = ctx.errors();
  return d;
}

Diagnosis run(QuerySource& source, const Options& options) {
  auto detectors = builtin_detectors();
  return run(source, options, detectors);
}

}  // namespace llmon::diagnose
