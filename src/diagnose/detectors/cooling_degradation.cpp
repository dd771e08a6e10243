// cooling_degradation: a GPU whose temperature climbs steadily while its
// power draw and utilisation stay constant: at least 1 °C an hour over a
// lookback of max(window, 2 h) (cooling trends take hours; a short window
// sees only noise), and at least 0.5 °C an hour in each half of it (a
// warm-up or a one-off step in the inlet temperature fails that), with power
// and utilisation changing less than 5 % (of their mean) over the lookback.
// The same heat now costs more degrees: a fan failing, dust, a cold plate
// losing contact, a coolant loop losing flow. Projects when it reaches the
// slowdown temperature at that rate.
#include <algorithm>
#include <cmath>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class CoolingDegradation final : public Detector {
 public:
  std::string_view name() const override { return "cooling_degradation"; }
  std::vector<std::string_view> kinds() const override { return {kind::kCoolingDegradation}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const int64_t lookback = std::max<int64_t>(ctx.options().window_ms, 2 * 3'600'000);
    const std::string l = prom_duration(lookback), half = prom_duration(lookback / 2);
    const std::string temp = ctx.sel("DCGM_FI_DEV_GPU_TEMP");
    const std::string slope_q = "deriv(" + temp + "[" + l + "]) * 3600";
    promql::Vector slope = ctx.query(slope_q + " >= 1");
    if (slope.empty()) return;
    const std::string late_q = "deriv(" + temp + "[" + half + "]) * 3600";
    const std::string early_q = "deriv(" + temp + "[" + half + "] offset " + half + ") * 3600";
    // Relative change over the lookback: slope x length / mean.
    auto drift = [&](const std::string& x) {
      return "abs(deriv(" + x + "[" + l + "])) * " + std::to_string(lookback / 1000) + " / avg_over_time(" + x + "[" +
             l + "])";
    };
    const std::string power_q = drift(ctx.sel("DCGM_FI_DEV_POWER_USAGE"));
    const std::string util_q = drift(ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\""));
    const std::string now_q = "avg_over_time(" + temp + "[5m])";
    const std::string slow_q = ctx.sel("DCGM_FI_DEV_SLOWDOWN_TEMP");
    promql::Vector late = ctx.query(late_q), early = ctx.query(early_q);
    promql::Vector power = ctx.query(power_q), util = ctx.query(util_q);
    promql::Vector now = ctx.query(now_q), slow = ctx.query(slow_q);
    promql::Vector all = ctx.query(slope_q);
    for (const auto& s : slope) {
      std::string_view gpu = s.labels.get("gpu");
      const auto* a = find_by(early, "gpu", gpu);
      const auto* b = find_by(late, "gpu", gpu);
      const auto* p = find_by(power, "gpu", gpu);
      const auto* u = find_by(util, "gpu", gpu);
      if (!a || !b || a->v < 0.5 || b->v < 0.5) continue;      // a step or a warm-up, not a trend
      if (!p || !u || p->v >= 0.05 || u->v >= 0.05) continue;  // the load changed: heat follows it
      const auto* n = find_by(now, "gpu", gpu);
      const auto* z = find_by(slow, "gpu", gpu);
      double hours = n && z ? std::max(0.0, z->v - n->v) / s.v : -1;
      Finding f =
          ctx.finding(kind::kCoolingDegradation, hours >= 0 && hours <= 24 ? Severity::kWarning : Severity::kInfo);
      f.start_ms = ctx.options().t_ms - lookback;
      f.subject = subject_of(s, {"gpu", "UUID", "modelName", "instance"});
      f.confidence = std::clamp(0.5 + 0.1 * std::min(a->v, b->v), 0.0, 0.95);
      f.summary = strf(
          "%s warms %.1f °C an hour over %s at constant load (power within %.0f %%, utilisation "
          "within %.0f %%)",
          gpu_name(f.subject).c_str(), s.v, l.c_str(), p->v * 100, u->v * 100);
      if (n) f.summary += strf("; %.0f °C now", n->v);
      if (hours >= 0) f.summary += strf(", %.0f °C (slowdown) in about %.0f h at this rate", z->v, hours);
      // Peers that stay flat point at this GPU's own cooling, all rising at the room's.
      size_t flat = 0;
      for (const auto& o : all) flat += o.labels.get("gpu") != gpu && o.v < 0.5;
      if (flat > 0) f.summary += strf("; %zu other GPUs stay flat", flat);
      f.evidence = {{slope_q, s.v, "temperature trend over the lookback, °C/h"},
                    {early_q, a->v, "the same over its first half"},
                    {late_q, b->v, "the same over its second half"},
                    {power_q, p->v, "change of power over the lookback / mean"},
                    {util_q, u->v, "change of utilisation over the lookback / mean"}};
      if (n) f.evidence.push_back({now_q, n->v, "temperature now, °C"});
      if (z) f.evidence.push_back({slow_q, z->v, "slowdown temperature, °C"});
      f.advice =
          "A temperature that keeps rising at the same load predicts a cooling failure: check this GPU's fan "
          "(`nvidia-smi -q -d TEMPERATURE,PERFORMANCE`, the BMC's fan speeds), dust filters and airflow, or on "
          "liquid cooling the loop's flow and inlet temperature; schedule maintenance (drain the node) before "
          "it reaches the slowdown temperature.";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_cooling_degradation() {
  return std::make_unique<CoolingDegradation>();
}

}  // namespace llmon::diagnose
