// gpu_memory_pressure: GPU memory headroom under 5 % of the usable memory,
// or a steady climb that fills it within two hours (the least-squares slope
// over the window: PromQL's deriv); host_memory_pressure: swapping, memory
// pressure stalls (PSI) or MemAvailable under 5 %.
#include <algorithm>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class Memory final : public Detector {
 public:
  std::string_view name() const override { return "memory"; }
  std::vector<std::string_view> kinds() const override { return {kind::kGpuMemoryPressure, kind::kHostMemoryPressure}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    gpu(ctx, out);
    host(ctx, out);
  }

 private:
  static void gpu(Context& ctx, std::vector<Finding>& out) {
    const std::string w = ctx.window();
    const std::string used = ctx.sel("DCGM_FI_DEV_FB_USED", "GPU_I_ID=\"\"");
    const std::string free = ctx.sel("DCGM_FI_DEV_FB_FREE", "GPU_I_ID=\"\"");
    const std::string headroom_q = "min_over_time(" + free + "[" + w + "]) / (" + used + " + " + free + ")";
    const std::string slope_q = "deriv(" + used + "[" + w + "])";
    const std::string free_q = free;
    promql::Vector headroom = ctx.query(headroom_q);
    if (headroom.empty()) return;
    promql::Vector slope = ctx.query(slope_q);
    promql::Vector now = ctx.query(free_q);
    // Who holds the memory: the largest process on each GPU now.
    const std::string procs_q = ctx.sel("llmon_gpu_process_memory_bytes");
    promql::Vector procs = ctx.query(procs_q);
    for (const auto& h : headroom) {
      std::string_view gpu = h.labels.get("gpu");
      const promql::VectorSample* s = find_by(slope, "gpu", gpu);
      const promql::VectorSample* n = find_by(now, "gpu", gpu);
      double mib_per_s = s ? s->v : 0;
      double free_mib = n ? n->v : 0;
      double to_full_s = mib_per_s > 0.01 ? free_mib / mib_per_s : -1;
      bool low = h.v < 0.05;
      bool filling = to_full_s >= 0 && to_full_s < 2 * 3600 && free_mib > 0;
      if (!low && !filling) continue;
      Severity sev = h.v < 0.02 || (filling && to_full_s < 1800) ? Severity::kCritical : Severity::kWarning;
      Finding f = ctx.finding(kind::kGpuMemoryPressure, sev);
      f.subject = subject_of(h, {"gpu", "UUID", "modelName", "instance"});
      f.confidence = low ? std::clamp(1.0 - h.v * 10, 0.5, 1.0) : 0.6;
      f.summary = strf("%s memory headroom down to %.1f %% of usable memory over %s", gpu_name(f.subject).c_str(),
                       h.v * 100, w.c_str());
      if (filling)
        f.summary += strf("; growing %.1f MiB/s, full in about %.0f min at this rate", mib_per_s, to_full_s / 60);
      const promql::VectorSample* top = nullptr;
      for (const auto& p : procs)
        if (p.labels.get("gpu") == gpu && (!top || p.v > top->v)) top = &p;
      if (top) {
        for (auto [k, v] : subject_of(*top, {"pid", "command", "container", "pod"})) f.subject[k] = v;
        f.summary += strf(" (process %s holds %.1f GiB)", std::string(top->labels.get("pid")).c_str(),
                          top->v / (1024.0 * 1024 * 1024));
      }
      f.evidence = {{headroom_q, h.v, "lowest free memory / usable memory"}};
      if (top) f.evidence.push_back({procs_q, top->v, "GPU memory of the largest process on it, bytes"});
      if (s) f.evidence.push_back({slope_q, mib_per_s, "growth of used memory, MiB/s (least squares)"});
      if (n) f.evidence.push_back({free_q, free_mib, "free memory now, MiB"});
      f.advice =
          "The next allocation that does not fit fails with CUDA out of memory: lower the batch size or "
          "sequence length, enable activation checkpointing, shard optimizer state (ZeRO/FSDP), or, for "
          "serving, lower gpu_memory_utilization / max_num_seqs. A steady climb at constant load is a leak "
          "(cached tensors, a growing list of losses kept on the GPU).";
      out.push_back(std::move(f));
    }
  }

  static void host(Context& ctx, std::vector<Finding>& out) {
    const std::string w = ctx.window();
    const std::string avail_q = "min_over_time(" + ctx.sel("node_memory_MemAvailable_bytes") + "[" + w + "]) / " +
                                ctx.sel("node_memory_MemTotal_bytes");
    const std::string swap_q = "rate(" + ctx.sel("node_vmstat_pswpin") + "[" + w + "]) + rate(" +
                               ctx.sel("node_vmstat_pswpout") + "[" + w + "])";
    const std::string psi_q = "rate(" + ctx.sel("node_pressure_memory_waiting_seconds_total") + "[" + w + "])";
    promql::Vector avail = ctx.query(avail_q);
    promql::Vector swap = ctx.query(swap_q);
    promql::Vector psi = ctx.query(psi_q);
    // The worst node when a selector spans several.
    double a = 1, sw = 0, p = 0;
    for (const auto& s : avail) a = std::min(a, s.v);
    for (const auto& s : swap) sw = std::max(sw, s.v);
    for (const auto& s : psi) p = std::max(p, s.v);
    int signals = (a < 0.05) + (sw > 100) + (p > 0.1);
    if (signals == 0) return;
    Finding f = ctx.finding(kind::kHostMemoryPressure,
                            p > 0.3 || a < 0.02 || signals >= 2 ? Severity::kCritical : Severity::kWarning);
    if (!avail.empty()) f.subject = subject_of(avail[0], {"instance"});
    f.confidence = std::clamp(0.4 + 0.2 * signals, 0.0, 1.0);
    f.summary = strf(
        "host memory short over %s: MemAvailable down to %.1f %%, swapping %.0f pages/s, tasks stalled "
        "on memory %.0f %% of the time",
        w.c_str(), a * 100, sw, p * 100);
    if (!avail.empty()) f.evidence.push_back({avail_q, a, "lowest MemAvailable / MemTotal"});
    if (!swap.empty()) f.evidence.push_back({swap_q, sw, "pages swapped in + out per second"});
    if (!psi.empty()) f.evidence.push_back({psi_q, p, "share of time some task waited for memory (PSI)"});
    f.advice =
        "The host runs out of RAM: data loader workers each copy the dataset (use shared memory or fewer "
        "workers), pinned-memory buffers grow with num_workers x prefetch_factor, or a process leaks; find "
        "the largest RSS in the GPU processes view. Swapping stalls the input pipeline and so the GPUs.";
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Detector> make_memory() {
  return std::make_unique<Memory>();
}

}  // namespace llmon::diagnose
