// memory_leak_host / memory_leak_gpu: a process whose resident (host) or GPU
// memory grows steadily: more than 5 % an hour over a lookback of at least an
// hour (longer than the window when the window is short: warm-up, model
// loading and the first KV-cache fill are steps, not slopes), and growing in
// both halves of it (a single step fails that).
#include <algorithm>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class Leak final : public Detector {
 public:
  std::string_view name() const override { return "leak"; }
  std::vector<std::string_view> kinds() const override { return {kind::kMemoryLeakHost, kind::kMemoryLeakGpu}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const int64_t lookback = std::max<int64_t>(ctx.options().window_ms, 3'600'000);
    look(ctx, out, kind::kMemoryLeakHost, "llmon_gpu_process_resident_memory_bytes", lookback, "resident memory");
    look(ctx, out, kind::kMemoryLeakGpu, "llmon_gpu_process_memory_bytes", lookback, "GPU memory");
  }

 private:
  static void look(Context& ctx, std::vector<Finding>& out, std::string_view k, const char* family, int64_t lookback,
                   const char* what) {
    const std::string x = ctx.sel(family);
    const std::string l = prom_duration(lookback), half = prom_duration(lookback / 2);
    // Relative growth per hour over the lookback, and over each half.
    const std::string rel_q = "deriv(" + x + "[" + l + "]) * 3600 / avg_over_time(" + x + "[" + l + "])";
    const std::string late_q = "deriv(" + x + "[" + half + "]) * 3600 / avg_over_time(" + x + "[" + half + "])";
    const std::string early_q = "deriv(" + x + "[" + half + "] offset " + half + ") * 3600 / avg_over_time(" + x + "[" +
                                half + "] offset " + half + ")";
    promql::Vector rel = ctx.query(rel_q + " > 0.05");
    if (rel.empty()) return;
    promql::Vector late = ctx.query(late_q);
    promql::Vector early = ctx.query(early_q);
    const std::string now_q = x;
    promql::Vector now = ctx.query(now_q);
    for (const auto& r : rel) {
      std::string_view pid = r.labels.get("pid");
      std::string_view gpu = r.labels.get("gpu");
      auto same = [&](const promql::Vector& v) -> const promql::VectorSample* {
        for (const auto& s : v)
          if (s.labels.get("pid") == pid && s.labels.get("gpu") == gpu) return &s;
        return nullptr;
      };
      const auto* a = same(early);
      const auto* b = same(late);
      if (!a || !b || a->v < 0.02 || b->v < 0.02) continue;  // not steady: a step or a plateau
      // One process appears once per GPU it uses: report it once (host memory is per process).
      bool seen = false;
      for (const auto& f : out)
        seen = seen || (f.kind == k && f.subject.count("pid") && f.subject.at("pid") == pid &&
                        (k == kind::kMemoryLeakHost || f.subject.at("gpu") == gpu));
      if (seen) continue;
      Finding f = ctx.finding(k, Severity::kWarning);
      f.start_ms = ctx.options().t_ms - lookback;
      f.subject = subject_of(r, {"pid", "command", "user", "container", "pod", "namespace", "instance"});
      if (k == kind::kMemoryLeakGpu) {
        for (auto [key, v] : subject_of(r, {"gpu", "UUID", "modelName"})) f.subject[key] = v;
      }
      const auto* n = same(now);
      double gib = n ? n->v / (1024.0 * 1024 * 1024) : 0;
      f.confidence = std::clamp(0.6 + std::min(a->v, b->v), 0.0, 0.95);
      f.summary = strf(
          "process %s (%s) %s grows %.0f %% an hour over %s, steadily (%.0f %%/h then %.0f %%/h); "
          "%.1f GiB now",
          std::string(pid).c_str(), std::string(r.labels.get("command")).c_str(), what, r.v * 100, l.c_str(),
          a->v * 100, b->v * 100, gib);
      if (k == kind::kMemoryLeakGpu) f.summary += " on GPU " + std::string(gpu);
      f.evidence = {{rel_q, r.v, "growth per hour / mean, over the lookback"},
                    {early_q, a->v, "the same over its first half"},
                    {late_q, b->v, "the same over its second half"}};
      if (n) f.evidence.push_back({now_q, n->v, "bytes now"});
      f.advice = k == kind::kMemoryLeakGpu
                     ? "GPU memory that grows at constant load is kept tensors (losses or outputs appended to a "
                       "list, a cache without a bound, graphs kept alive by .backward(retain_graph=True)); "
                       "torch.cuda.memory_snapshot() shows who allocates. It ends in CUDA out of memory."
                     : "Host memory that grows at constant load: Python objects kept across steps (metrics lists, "
                       "a growing dataset cache, leaking DataLoader workers with copy-on-write of refcounts); "
                       "tracemalloc or memray on the process shows where. It ends in swapping or the OOM killer.";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_leak() {
  return std::make_unique<Leak>();
}

}  // namespace llmon::diagnose
