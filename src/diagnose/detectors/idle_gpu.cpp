// idle_gpu: GPUs under 30 % for most of the window, and whether a process
// holds their memory meanwhile (a notebook, a stuck job, an idle server):
// the GPU-hours and what they cost.
#include <algorithm>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class IdleGpu final : public Detector {
 public:
  std::string_view name() const override { return "idle_gpu"; }
  std::vector<std::string_view> kinds() const override { return {kind::kIdleGpu}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window();
    const std::string util = ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"");
    const std::string avg_q = "avg_over_time(" + util + "[" + w + "])";
    const std::string low_q = "avg_over_time((" + util + " < bool 30)[" + w + ":15s])";
    const std::string held_q = "max_over_time(" + ctx.sel("llmon_gpu_process_memory_bytes") + "[" + w + "])";
    promql::Vector avg = ctx.query(avg_q);
    if (avg.empty()) return;
    promql::Vector low = ctx.query(low_q);
    promql::Vector held = ctx.query(held_q);
    for (const auto& a : avg) {
      std::string_view gpu = a.labels.get("gpu");
      const promql::VectorSample* l = find_by(low, "gpu", gpu);
      double share = l ? l->v : 0;
      if (a.v >= 30 || share < 0.8) continue;
      double held_bytes = 0;
      const promql::VectorSample* top = nullptr;
      for (const auto& h : held) {
        if (h.labels.get("gpu") != gpu) continue;
        held_bytes += h.v;
        if (!top || h.v > top->v) top = &h;
      }
      bool holding = held_bytes >= 1024.0 * 1024 * 1024;
      Finding f = ctx.finding(kind::kIdleGpu, holding ? Severity::kWarning : Severity::kInfo);
      f.subject = subject_of(a, {"gpu", "UUID", "modelName", "instance"});
      if (holding && top) {
        for (auto [k, v] : subject_of(*top, {"pid", "command", "user", "container", "pod", "namespace"}))
          f.subject[k] = v;
      }
      f.confidence = std::clamp(share, 0.0, 1.0);
      double price = gpu_price_for(ctx.options(), a.labels.get("modelName"));
      double idle_cost = ctx.window_hours() * price * (1.0 - a.v / 100.0);
      f.summary = strf("%s averaged %.0f %% busy over %s (under 30 %% for %.0f %% of it)", gpu_name(f.subject).c_str(),
                       a.v, w.c_str(), share * 100);
      if (holding) f.summary += strf("; processes hold %.1f GiB of its memory", held_bytes / (1024.0 * 1024 * 1024));
      f.summary += strf("; $%.2f of GPU time unused ($%.2f/h)", idle_cost, price * (1.0 - a.v / 100.0));
      f.evidence = {{avg_q, a.v, "mean utilisation, %"}, {low_q, share, "share of the window under 30 %"}};
      if (holding) f.evidence.push_back({held_q, held_bytes, "GPU memory held by processes, bytes"});
      f.advice = holding ? "A process holds this GPU's memory and computes nothing (a notebook, a job stuck in its "
                           "data path or on a barrier, an inference server without traffic): find it in the GPU "
                           "processes view and stop it, fix what it waits for, or scale the server in."
                         : "No process uses this GPU: give it back to the scheduler, pack jobs onto fewer GPUs, or "
                           "power the node down.";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_idle_gpu() {
  return std::make_unique<IdleGpu>();
}

}  // namespace llmon::diagnose
