// input_bound_cpu / input_bound_io: GPUs that hold a job's memory but are
// busy only part of the time, while the host shows the job waiting on its
// CPUs (a GPU process at 100 % of one core: the data loader's main loop; CPU
// pressure stalls; every core busy) or on storage (I/O pressure stalls,
// iowait, a disk busy all the time). Each signal adds confidence.
#include <algorithm>
#include <cmath>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class InputBound final : public Detector {
 public:
  std::string_view name() const override { return "input_bound"; }
  std::vector<std::string_view> kinds() const override { return {kind::kInputBoundCpu, kind::kInputBoundIo}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window();
    const std::string util_q = "avg_over_time(" + ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"") + "[" + w + "])";
    const std::string held_q =
        "sum by (gpu) (max_over_time(" + ctx.sel("llmon_gpu_process_memory_bytes") + "[" + w + "]))";
    promql::Vector util = ctx.query(util_q);
    promql::Vector held = ctx.query(held_q);
    // Starved: a job is there (memory held) and the GPU is busy 5-70 % of the time.
    std::vector<const promql::VectorSample*> starved;
    for (const auto& u : util) {
      const promql::VectorSample* h = find_by(held, "gpu", u.labels.get("gpu"));
      if (h && h->v >= 1024.0 * 1024 * 1024 && u.v >= 5 && u.v < 70) starved.push_back(&u);
    }
    if (starved.empty()) return;
    double mean = 0, held_bytes = 0;
    std::string gpus;
    for (const auto* s : starved) {
      mean += s->v;
      held_bytes += find_by(held, "gpu", s->labels.get("gpu"))->v;
      gpus += (gpus.empty() ? "" : ",") + std::string(s->labels.get("gpu"));
    }
    mean /= static_cast<double>(starved.size());

    // Node-level values: the largest when a selector spans several nodes.
    auto scalar = [&](const std::string& q) {
      double m = -1;
      for (const auto& s : ctx.query(q)) m = std::max(m, s.v);
      return m;
    };
    // CPU.
    const std::string proc_q = "rate(" + ctx.sel("llmon_gpu_process_cpu_seconds_total") + "[" + w + "])";
    const std::string psi_cpu_q = "rate(" + ctx.sel("node_pressure_cpu_waiting_seconds_total") + "[" + w + "])";
    const std::string busy_q = "1 - avg(rate(" + ctx.sel("node_cpu_seconds_total", "mode=\"idle\"") + "[" + w + "]))";
    promql::Vector procs = ctx.query(proc_q);
    // The loader's main loop pegs one thread: a process at one core (0.9-1.1)
    // is the suspect even when others use more cores in parallel; failing
    // that, the busiest process at 0.9 cores or more.
    const promql::VectorSample* pinned = nullptr;
    for (const auto& p : procs)
      if (p.v >= 0.9 && p.v <= 1.1 && (!pinned || std::abs(p.v - 1) < std::abs(pinned->v - 1))) pinned = &p;
    if (!pinned)
      for (const auto& p : procs)
        if (p.v >= 0.9 && (!pinned || p.v > pinned->v)) pinned = &p;
    double psi_cpu = scalar(psi_cpu_q), busy = scalar(busy_q);
    // I/O.
    const std::string psi_io_q = "rate(" + ctx.sel("node_pressure_io_waiting_seconds_total") + "[" + w + "])";
    const std::string iowait_q = "avg(rate(" + ctx.sel("node_cpu_seconds_total", "mode=\"iowait\"") + "[" + w + "]))";
    const std::string disk_q = "rate(" + ctx.sel("node_disk_io_time_seconds_total") + "[" + w + "])";
    const promql::VectorSample* busiest_disk = nullptr;
    promql::Vector disks = ctx.query(disk_q);
    for (const auto& d : disks)
      if (!busiest_disk || d.v > busiest_disk->v) busiest_disk = &d;
    double psi_io = scalar(psi_io_q), iowait = scalar(iowait_q), disk = busiest_disk ? busiest_disk->v : -1;

    int cpu_signals = (pinned != nullptr) + (psi_cpu > 0.2) + (busy > 0.9);
    int io_signals = (psi_io > 0.2) + (iowait > 0.15) + (disk > 0.9);
    auto base = [&](std::string_view k, int signals) {
      Finding f = ctx.finding(k, Severity::kWarning);
      f.subject = subject_of(*starved[0], {"instance"});
      f.subject["gpu"] = gpus;
      f.confidence = std::clamp(0.3 + 0.2 * signals, 0.0, 0.95);
      f.evidence.push_back({util_q, mean, "mean utilisation of the starved GPUs, %"});
      f.evidence.push_back({held_q, held_bytes, "GPU memory held by processes on them (a job runs), bytes"});
      return f;
    };
    if (cpu_signals > 0) {
      Finding f = base(kind::kInputBoundCpu, cpu_signals);
      f.summary =
          strf("GPU %s busy only %.0f %% over %s while the job waits on the CPU", gpus.c_str(), mean, w.c_str());
      if (pinned) {
        for (auto [k, v] : subject_of(*pinned, {"pid", "command", "container", "pod"})) f.subject[k] = v;
        f.summary +=
            strf(": process %s at %.0f %% of a core", std::string(pinned->labels.get("pid")).c_str(), pinned->v * 100);
        f.evidence.push_back({proc_q, pinned->v, "CPU of the GPU process, cores"});
      }
      if (psi_cpu >= 0) f.evidence.push_back({psi_cpu_q, psi_cpu, "share of time tasks waited for a CPU (PSI)"});
      if (busy >= 0) f.evidence.push_back({busy_q, busy, "share of all cores busy"});
      f.advice =
          "The input pipeline is CPU-bound: raise DataLoader num_workers (one process per core is not the "
          "limit: watch the loader's main process), move decoding and augmentation to the GPU (DALI, "
          "torchvision v2 on CUDA), pre-tokenise the dataset, pin_memory=True with persistent_workers.";
      out.push_back(std::move(f));
    }
    if (io_signals > 0) {
      Finding f = base(kind::kInputBoundIo, io_signals);
      f.summary = strf(
          "GPU %s busy only %.0f %% over %s while the host waits on storage (I/O stalls %.0f %%, "
          "busiest disk %.0f %%)",
          gpus.c_str(), mean, w.c_str(), std::max(psi_io, 0.0) * 100, std::max(disk, 0.0) * 100);
      if (psi_io >= 0) f.evidence.push_back({psi_io_q, psi_io, "share of time tasks waited for I/O (PSI)"});
      if (iowait >= 0) f.evidence.push_back({iowait_q, iowait, "share of CPU time in iowait"});
      if (busiest_disk && disk > 0.9) f.subject["device"] = std::string(busiest_disk->labels.get("device"));
      if (disk >= 0) f.evidence.push_back({disk_q, disk, "busiest disk's utilisation"});
      f.advice =
          "Reading the data is the bottleneck: stage the dataset on local NVMe, use larger sequential "
          "shards (WebDataset, Arrow) instead of many small files, raise prefetching, and keep checkpoints "
          "off the data disk.";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_input_bound() {
  return std::make_unique<InputBound>();
}

}  // namespace llmon::diagnose
