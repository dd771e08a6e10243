// communication_bound: the GPUs of one job (every GPU busy >= 20 % on
// average) dip in lock-step, and the dips are when the interconnect carries
// the most: the collectives (all-reduce, all-gather) take a large share of
// each step and the GPUs wait for the network. Over the window, sampled at
// the subquery's step, leaving out the pauses (the GPUs' mean under 10 %:
// checkpoints, restarts):
//   - the node's mean utilisation swings (its standard deviation over time
//     is >= 10 points, and the 90th percentile is >= 20 points above the
//     25th: a quarter of the time or more is a dip),
//   - the GPUs move together (their spread across GPUs averages less than
//     half that swing),
//   - the mean utilisation and the InfiniBand or NVLink transmit rate are
//     anti-correlated (Pearson r <= -0.5).
// Evaluation passes slow the traffic with the GPUs, so they correlate
// positively and do not count.
#include <algorithm>
#include <cmath>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class CommunicationBound final : public Detector {
 public:
  std::string_view name() const override { return "communication_bound"; }
  std::vector<std::string_view> kinds() const override { return {kind::kCommunicationBound}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window(), s = ctx.sub();
    const std::string util = ctx.sel("DCGM_FI_DEV_GPU_UTIL", "GPU_I_ID=\"\"");
    const std::string each_q = "avg_over_time(" + util + "[" + w + "])";
    promql::Vector each = ctx.query(each_q);
    if (each.size() < 2) return;
    double mean = 0;
    std::string gpus;
    for (const auto& e : each) {
      if (e.v < 20) return;  // not one job on every GPU
      mean += e.v / static_cast<double>(each.size());
      gpus += (gpus.empty() ? "" : ",") + std::string(e.labels.get("gpu"));
    }
    // The node's mean utilisation while the job runs: pauses (under 10 %: checkpoints, restarts)
    // are another kind's and would swamp the statistics.
    const std::string node = "(avg(" + util + ") >= 10)";
    const std::string swing_q = "stddev_over_time(" + node + s + ")";
    const std::string spread_q = "avg_over_time((stddev(" + util + ") and on() " + node + ")" + s + ")";
    const std::string dip_q = "quantile_over_time(0.9, " + node + s + ") - quantile_over_time(0.25, " + node + s + ")";
    double swing = first_value(ctx.query(swing_q)), spread = first_value(ctx.query(spread_q)),
           dip = first_value(ctx.query(dip_q));
    if (swing < 10 || dip < 20 || spread < 0 || spread >= 0.5 * swing) return;

    struct Fabric {
      const char* family;
      const char* what;
    };
    double best = 1;
    std::string best_q;
    const char* best_what = nullptr;
    for (const Fabric& fab : {Fabric{"node_infiniband_port_data_transmitted_bytes_total", "InfiniBand"},
                              Fabric{"llmon_gpu_nvlink_transmit_bytes_total", "NVLink"}}) {
      const std::string t = "(sum(irate(" + ctx.sel(fab.family) + "[1m])) and on() " + node + ")";
      const std::string corr_q = "(avg_over_time((" + node + " * on() " + t + ")" + s + ") - avg_over_time(" + node +
                                 s + ") * avg_over_time(" + t + s + ")) / (stddev_over_time(" + node + s +
                                 ") * stddev_over_time(" + t + s + "))";
      promql::Vector c = ctx.query(corr_q);
      if (!c.empty() && std::isfinite(c[0].v) && c[0].v < best) best = c[0].v, best_q = corr_q, best_what = fab.what;
    }
    if (best > -0.5) return;

    Finding f = ctx.finding(kind::kCommunicationBound, Severity::kWarning);
    f.subject = subject_of(each[0], {"instance"});
    f.subject["gpu"] = gpus;
    f.confidence = std::clamp(0.6 + 0.35 * -best, 0.0, 0.95);
    f.summary = strf(
        "GPU %s dip in lock-step while %s traffic peaks (correlation %.2f) over %s: mean utilisation %.0f %%, "
        "swinging by %.0f points (%.0f between the GPUs)",
        gpus.c_str(), best_what, best, w.c_str(), mean, swing, spread);
    f.evidence = {{each_q, mean, "mean utilisation of the job's GPUs, %"},
                  {swing_q, swing, "standard deviation over time of the node's mean utilisation, points"},
                  {spread_q, spread, "mean standard deviation across the GPUs, points"},
                  {dip_q, dip, "90th - 25th percentile of the node's mean utilisation, points"},
                  {best_q, best, std::string("correlation of utilisation with ") + best_what + " transmit rate"}};
    // The busiest InfiniBand port and how close to its rate its peaks come.
    const std::string ib = "irate(" + ctx.sel("node_infiniband_port_data_transmitted_bytes_total") + "[1m])";
    const std::string peak_q =
        "max_over_time((" + ib + " / " + ctx.sel("node_infiniband_rate_bytes_per_second") + ")" + s + ")";
    const std::string rate_q = "avg_over_time(" + ib + s + ")";
    promql::Vector rates = ctx.query(rate_q);
    const promql::VectorSample* busiest = nullptr;
    for (const auto& r : rates)
      if (!busiest || r.v > busiest->v) busiest = &r;
    if (busiest) {
      std::string dev(busiest->labels.get("device"));
      f.subject["device"] = dev;
      f.evidence.push_back({rate_q, busiest->v, "mean transmit rate of the busiest InfiniBand port, bytes/s"});
      promql::Vector peaks = ctx.query(peak_q);
      if (const auto* p = find_by(peaks, "device", dev)) {
        f.summary += strf("; %s peaks at %.0f %% of its link", dev.c_str(), p->v * 100);
        f.evidence.push_back({peak_q, p->v, "highest transmit rate / link rate"});
      }
    }
    f.advice =
        "The collectives hold up the GPUs: measure the fabric (nccl-tests all_reduce_perf, `ib_write_bw`, "
        "`iperf3`, ping between nodes), check that NCCL uses NVLink/P2P and the InfiniBand HCAs with GPUDirect "
        "RDMA (`NCCL_DEBUG=INFO`; a firewall on NCCL's port, often 29400, forces a slow path), overlap "
        "communication with compute (DDP bucket size, FSDP prefetch) and synchronise less often (gradient "
        "accumulation, a larger batch per GPU).";
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Detector> make_communication_bound() {
  return std::make_unique<CommunicationBound>();
}

}  // namespace llmon::diagnose
