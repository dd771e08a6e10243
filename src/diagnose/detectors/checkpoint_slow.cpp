// checkpoint_slow: a job (processes hold GPU memory, the GPUs are busy >= 30 %
// between the gaps) whose GPUs all go idle (their mean utilisation under
// 10 %) for 5-70 % of the window, in gaps during which one disk writes at
// least 20 MB/s and three times what it writes while the GPUs work: the job
// stops to write a checkpoint and waits for the disk. Reports the gaps'
// number and length, the write throughput during them and whether it is
// below the 200 MB/s a checkpoint needs.
#include <algorithm>
#include <cmath>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class CheckpointSlow final : public Detector {
 public:
  std::string_view name() const override { return "checkpoint_slow"; }
  std::vector<std::string_view> kinds() const override { return {kind::kCheckpointSlow}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window(), s = ctx.sub();
    const std::string util = ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"");
    const std::string held_q = "sum(max_over_time(" + ctx.sel("llmon_gpu_process_memory_bytes") + "[" + w + "]))";
    promql::Vector held = ctx.query(held_q);
    if (held.empty() || held[0].v < 1024.0 * 1024 * 1024) return;  // no job
    const std::string idle = "(avg(" + util + ") < 10)";
    const std::string share_q = "avg_over_time((avg(" + util + ") < bool 10)" + s + ")";
    const std::string edges_q = "changes((avg(" + util + ") < bool 10)" + s + ")";
    const std::string points_q = "sum_over_time((avg(" + util + ") < bool 10)" + s + ")";
    const std::string work_q = "avg_over_time((avg(" + util + ") >= 10)" + s + ")";
    double share = first_value(ctx.query(share_q));
    if (share < 0.05 || share > 0.7) return;
    double working = first_value(ctx.query(work_q));
    if (working < 30) return;  // not a job that pauses: one that barely runs

    const std::string wr = "irate(" + ctx.sel("node_disk_written_bytes_total") + "[1m])";
    const std::string gap_q = "avg_over_time((" + wr + " and on() " + idle + ")" + s + ")";
    const std::string rest_q = "avg_over_time((" + wr + " unless on() " + idle + ")" + s + ")";
    promql::Vector gap = ctx.query(gap_q);
    promql::Vector rest = ctx.query(rest_q);
    const promql::VectorSample* disk = nullptr;
    double outside = 0;
    for (const auto& g : gap) {
      const auto* r = find_by(rest, "device", g.labels.get("device"));
      double o = r ? r->v : 0;
      if (g.v >= 20e6 && g.v >= 3 * std::max(o, 1e6) && (!disk || g.v > disk->v)) disk = &g, outside = o;
    }
    if (!disk) return;
    std::string dev(disk->labels.get("device"));
    const std::string busy_q =
        "avg_over_time((irate(" + ctx.sel("node_disk_io_time_seconds_total") + "[1m]) and on() " + idle + ")" + s + ")";
    promql::Vector busy = ctx.query(busy_q);
    const auto* b = find_by(busy, "device", dev);
    double edges = std::max(0.0, first_value(ctx.query(edges_q)));
    double gaps = std::max(1.0, std::ceil(edges / 2));
    // Idle samples x the step, per gap.
    double gap_s = first_value(ctx.query(points_q), 0) * static_cast<double>(ctx.sub_step_ms()) / 1000 / gaps;

    Finding f = ctx.finding(kind::kCheckpointSlow, Severity::kWarning);
    f.subject = subject_of(*disk, {"device", "instance"});
    f.subject["gpu"] = gpus(ctx.query("avg_over_time(" + util + "[" + w + "])"));
    if (std::string mp = mountpoint_of(ctx.query(ctx.sel("node_filesystem_size_bytes")), dev); !mp.empty())
      f.subject["mountpoint"] = mp;
    f.confidence = std::clamp(0.55 + share, 0.0, 0.85);
    std::string where = dev + (f.subject.count("mountpoint") ? " (" + f.subject["mountpoint"] + ")" : "");
    f.summary = strf(
        "the GPUs stop %.0f %% of %s in %.0f gap%s of about %.0f s while %s writes %.0f MB/s (%.0f MB/s while "
        "they work)",
        share * 100, w.c_str(), gaps, gaps > 1 ? "s" : "", gap_s, where.c_str(), disk->v / 1e6, outside / 1e6);
    if (b) f.summary += strf(", %.0f %% busy", b->v * 100);
    f.summary += disk->v < 200e6 ? ": checkpoints stall training, below the 200 MB/s a checkpoint needs"
                                 : ": checkpoints stall training";
    f.evidence = {{share_q, share, "share of the window with the GPUs idle (mean utilisation < 10 %)"},
                  {edges_q, edges, "idle/busy transitions (two per gap)"},
                  {work_q, working, "mean utilisation between the gaps, %"},
                  {gap_q, disk->v, "write rate during the gaps, bytes/s"},
                  {rest_q, outside, "write rate while the GPUs work, bytes/s"}};
    if (b) f.evidence.push_back({busy_q, b->v, "disk busy during the gaps"});
    f.advice =
        "Training waits for its checkpoints: write them asynchronously (torch.distributed.checkpoint async_save, "
        "a background thread copying a CPU snapshot), to a faster local NVMe and copy them off later, from one "
        "writer per node, and checkpoint less often (every 500 steps instead of 100 on a slow disk); check free "
        "space and that no other job writes the same disk.";
    out.push_back(std::move(f));
  }

 private:
  static std::string gpus(const promql::Vector& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ",") + std::string(s.labels.get("gpu"));
    return out;
  }
};

}  // namespace

std::unique_ptr<Detector> make_checkpoint_slow() {
  return std::make_unique<CheckpointSlow>();
}

}  // namespace llmon::diagnose
