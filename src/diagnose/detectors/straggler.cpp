// straggler: on a node whose GPUs run one job (each busy >= 30 %), a GPU
// persistently behind its peers: utilisation or SM clock below the peers'
// median by more than 4 median absolute deviations and 8 % (clock: 3 %) of
// the median; with the likely cause (heat or power-cap throttling, a PCIe
// link trained below its maximum). In synchronous training every rank waits
// for it, so the whole job runs at its speed.
#include <algorithm>
#include <cmath>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

class Straggler final : public Detector {
 public:
  std::string_view name() const override { return "straggler"; }
  std::vector<std::string_view> kinds() const override { return {kind::kStraggler}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window();
    const std::string util_q = "avg_over_time(" + ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"") + "[" + w + "])";
    const std::string clock_q = "avg_over_time(" + ctx.sel("DCGM_FI_DEV_SM_CLOCK") + "[" + w + "])";
    promql::Vector util = ctx.query(util_q);
    if (util.size() < 3) return;
    for (const auto& u : util)
      if (u.v < 30) return;  // not one job on every GPU: idle_gpu's business
    promql::Vector clock = ctx.query(clock_q);
    struct Metric {
      const promql::Vector* v;
      const std::string* q;
      double min_fraction;
      const char* what;
    };
    for (const Metric& m : {Metric{&util, &util_q, 0.08, "utilisation"}, Metric{&clock, &clock_q, 0.03, "SM clock"}}) {
      if (m.v->size() < 3) continue;
      std::vector<double> vals;
      for (const auto& s : *m.v) vals.push_back(s.v);
      double med = median(vals);
      std::vector<double> dev;
      for (double x : vals) dev.push_back(std::fabs(x - med));
      double mad = median(dev);
      for (const auto& s : *m.v) {
        double gap = med - s.v;
        if (gap <= std::max(4 * mad, m.min_fraction * med)) continue;
        std::string_view gpu = s.labels.get("gpu");
        bool seen = false;
        for (const auto& f : out)
          seen = seen || (f.kind == kind::kStraggler && f.subject.count("gpu") && f.subject.at("gpu") == gpu);
        if (seen) continue;
        Finding f = ctx.finding(kind::kStraggler, Severity::kWarning);
        f.subject = subject_of(s, {"gpu", "UUID", "modelName", "instance"});
        f.confidence = std::clamp(0.6 + 2 * gap / med, 0.0, 0.98);
        f.summary = strf("%s lags its %zu peers: %s %.0f against their median %.0f (%.0f %% behind) over %s",
                         gpu_name(f.subject).c_str(), m.v->size() - 1, m.what, s.v, med, 100 * gap / med, w.c_str());
        f.evidence = {{*m.q, s.v, std::string(m.what) + " of this GPU"},
                      {*m.q, med, std::string("median over the node's GPUs (MAD ") + strf("%.2g", mad) + ")"}};
        cause(ctx, gpu, f);
        out.push_back(std::move(f));
      }
    }
  }

 private:
  // The likely cause, from what this GPU shows and its peers do not.
  static void cause(Context& ctx, std::string_view gpu, Finding& f) {
    const std::string w = ctx.window();
    const std::string g = "gpu=\"" + std::string(gpu) + "\"";
    const std::string thermal_q = "max(avg_over_time(" +
                                  ctx.sel("llmon_gpu_clock_event_reason_active",
                                          g + ",reason=~\"sw_thermal_slowdown|hw_thermal_slowdown|hw_slowdown\"") +
                                  "[" + w + "]))";
    const std::string power_q = "max(avg_over_time(" +
                                ctx.sel("llmon_gpu_clock_event_reason_active", g + ",reason=\"sw_power_cap\"") + "[" +
                                w + "]))";
    const std::string gen_q = "max_over_time(" + ctx.sel("DCGM_FI_DEV_PCIE_LINK_GEN", g) + "[" + w + "]) < " +
                              ctx.sel("DCGM_FI_DEV_PCIE_MAX_LINK_GEN", g);
    const std::string width_q =
        ctx.sel("DCGM_FI_DEV_PCIE_LINK_WIDTH", g) + " < " + ctx.sel("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", g);
    auto first = [&](const std::string& q) {
      promql::Vector v = ctx.query(q);
      return v.empty() ? -1.0 : v[0].v;
    };
    double thermal = first(thermal_q), power = first(power_q), gen = first(gen_q), width = first(width_q);
    if (thermal > 0.05) {
      f.summary += strf("; it throttles for heat %.0f %% of the time", thermal * 100);
      f.evidence.push_back({thermal_q, thermal, "share of the window throttled for heat"});
      f.advice =
          "The slow GPU is hot: check its fan and airflow, its position in the chassis, and the thermal "
          "paste or cold plate; meanwhile every rank waits for it at each collective.";
    } else if (gen >= 0 || width >= 0) {
      f.summary += gen >= 0 ? strf("; its PCIe link runs at gen %.0f, below its maximum", gen)
                            : strf("; its PCIe link runs at x%.0f, below its maximum", width);
      f.evidence.push_back({gen >= 0 ? gen_q : width_q, gen >= 0 ? gen : width, "PCIe link below its maximum"});
      f.advice =
          "The slow GPU's PCIe link trained down: reseat the GPU or riser and check the slot; its "
          "host-device copies and, without NVLink, its collectives run slower, and the job waits for it.";
    } else if (power > 0.05) {
      f.summary += strf("; it sits at its power cap %.0f %% of the time", power * 100);
      f.evidence.push_back({power_q, power, "share of the window at the power cap"});
      f.advice =
          "The slow GPU is power-capped harder than its peers: compare `nvidia-smi -q -d POWER` across "
          "the GPUs and restore the default limit.";
    } else {
      f.advice =
          "No throttling or link fault explains it: check whether its rank does more work (uneven data "
          "shards, a pipeline stage with more layers), or host-side trouble on its NUMA node.";
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_straggler() {
  return std::make_unique<Straggler>();
}

}  // namespace llmon::diagnose
