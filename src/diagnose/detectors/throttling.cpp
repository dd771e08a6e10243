// thermal_throttling / power_throttling: a busy GPU whose clocks the driver
// holds down for heat or for the power cap (the clock-event reasons), the
// share of the window it spent so, the clock it lost, and how close the
// temperature is to the slowdown point or the power to the cap.
#include <algorithm>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class Throttling final : public Detector {
 public:
  std::string_view name() const override { return "throttling"; }
  std::vector<std::string_view> kinds() const override { return {kind::kThermalThrottling, kind::kPowerThrottling}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window();
    const std::string busy_q = "avg_over_time(" + ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"") + "[" + w + "])";
    promql::Vector busy = ctx.query(busy_q);
    if (busy.empty()) return;
    const std::string clock_q = "avg_over_time(" + ctx.sel("DCGM_FI_DEV_SM_CLOCK") + "[" + w + "]) / on(gpu, UUID) " +
                                "max_over_time(" + ctx.sel("DCGM_FI_DEV_MAX_SM_CLOCK") + "[" + w + "])";
    promql::Vector clock = ctx.query(clock_q);
    struct Spec {
      std::string_view kind;
      const char* reasons;
      const char* what;
    };
    for (const Spec& spec : {Spec{kind::kThermalThrottling, "sw_thermal_slowdown|hw_thermal_slowdown", "heat"},
                             Spec{kind::kPowerThrottling, "sw_power_cap|hw_power_brake_slowdown", "the power cap"}}) {
      const std::string share_q =
          "max by (gpu, UUID, modelName, instance) (avg_over_time(" +
          ctx.sel("llmon_gpu_clock_event_reason_active", std::string("reason=~\"") + spec.reasons + "\"") + "[" + w +
          "]))";
      promql::Vector share = ctx.query(share_q);
      const bool thermal = spec.kind == kind::kThermalThrottling;
      const std::string temp_q = "max_over_time(" + ctx.sel("DCGM_FI_DEV_GPU_TEMP") + "[" + w + "])";
      const std::string slow_q = ctx.sel("DCGM_FI_DEV_SLOWDOWN_TEMP");
      const std::string power_q = "avg_over_time(" + ctx.sel("DCGM_FI_DEV_POWER_USAGE") + "[" + w + "])";
      const std::string limit_q = ctx.sel("DCGM_FI_DEV_ENFORCED_POWER_LIMIT");
      promql::Vector a, b;
      bool asked = false;
      for (const auto& s : share) {
        std::string_view gpu = s.labels.get("gpu");
        const promql::VectorSample* u = find_by(busy, "gpu", gpu);
        if (s.v < 0.1 || !u || u->v < 30) continue;  // throttling an idle GPU costs nothing
        if (!asked) {
          a = ctx.query(thermal ? temp_q : power_q);
          b = ctx.query(thermal ? slow_q : limit_q);
          asked = true;
        }
        const promql::VectorSample* c = find_by(clock, "gpu", gpu);
        double ratio = c ? c->v : 1;
        Finding f = ctx.finding(spec.kind, s.v >= 0.25 || ratio < 0.9 ? Severity::kWarning : Severity::kInfo);
        f.subject = subject_of(s, {"gpu", "UUID", "modelName", "instance"});
        f.confidence = std::clamp(0.5 + s.v / 2, 0.0, 1.0);
        f.summary = strf("%s held down by %s %.0f %% of %s while %.0f %% busy; SM clock at %.0f %% of its maximum",
                         gpu_name(f.subject).c_str(), spec.what, s.v * 100, w.c_str(), u->v, ratio * 100);
        f.evidence = {{share_q, s.v, "share of the window with the reason active"},
                      {busy_q, u->v, "mean utilisation, %"}};
        if (c) f.evidence.push_back({clock_q, ratio, "mean SM clock / maximum SM clock"});
        const promql::VectorSample* x = find_by(a, "gpu", gpu);
        const promql::VectorSample* y = find_by(b, "gpu", gpu);
        if (thermal) {
          if (x) f.summary += strf("; up to %.0f °C", x->v);
          if (x && y) f.summary += strf(" (slows down at %.0f °C)", y->v);
          if (x) f.evidence.push_back({temp_q, x->v, "highest temperature, °C"});
          if (y) f.evidence.push_back({slow_q, y->v, "slowdown temperature, °C"});
          f.advice =
              "Cooling does not keep up: check the inlet temperature, fans and airflow (blanking panels, "
              "blocked filters), compare with the neighbouring GPUs (one hot GPU points at its own cooling), "
              "and `nvidia-smi -q -d PERFORMANCE,TEMPERATURE`.";
        } else {
          if (x) f.summary += strf("; drawing %.0f W", x->v);
          if (x && y) f.summary += strf(" of a %.0f W cap", y->v);
          if (x) f.evidence.push_back({power_q, x->v, "mean power, W"});
          if (y) f.evidence.push_back({limit_q, y->v, "enforced power limit, W"});
          f.advice =
              "The GPU runs at its power cap: expected for dense kernels at the default cap; if the cap is "
              "below the default (DCGM_FI_DEV_POWER_MGMT_LIMIT_DEF), restore it with `nvidia-smi -pl`; a "
              "hardware power brake points at the PSU or the board's power delivery.";
        }
        out.push_back(std::move(f));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_throttling() {
  return std::make_unique<Throttling>();
}

}  // namespace llmon::diagnose
