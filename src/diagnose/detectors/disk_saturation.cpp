// disk_saturation: a block device busy (node_disk_io_time_seconds_total)
// 90 % or more for most of the window, or whose requests wait long (await:
// time spent per completed request) while it is busy at least half the time;
// named by device and, where a filesystem on it is mounted, its mountpoint,
// with the throughput that keeps it busy. A disk busy all the time delays
// everything that reads or writes it: the dataset, checkpoints, logs.
#include <algorithm>

#include "diagnose/detector.h"
#include "diagnose/format.h"

namespace llmon::diagnose {
namespace {

class DiskSaturation final : public Detector {
 public:
  std::string_view name() const override { return "disk_saturation"; }
  std::vector<std::string_view> kinds() const override { return {kind::kDiskSaturation}; }

  void run(Context& ctx, std::vector<Finding>& out) override {
    const std::string w = ctx.window();
    const std::string io = ctx.sel("node_disk_io_time_seconds_total");
    const std::string busy_q = "rate(" + io + "[" + w + "])";
    promql::Vector busy = ctx.query(busy_q);
    if (busy.empty()) return;
    const std::string share_q = "avg_over_time((rate(" + io + "[1m]) > bool 0.9)" + ctx.sub() + ")";
    auto r = [&](const char* family) { return "rate(" + ctx.sel(family) + "[" + w + "])"; };
    const std::string await_q =
        "(" + r("node_disk_read_time_seconds_total") + " + " + r("node_disk_write_time_seconds_total") + ") / (" +
        r("node_disk_reads_completed_total") + " + " + r("node_disk_writes_completed_total") + ")";
    const std::string queue_q = r("node_disk_io_time_weighted_seconds_total");
    const std::string write_q = r("node_disk_written_bytes_total");
    const std::string read_q = r("node_disk_read_bytes_total");
    promql::Vector share = ctx.query(share_q);
    promql::Vector await = ctx.query(await_q);
    promql::Vector queue, writes, reads, fs;
    bool asked = false;
    for (const auto& b : busy) {
      std::string_view dev = b.labels.get("device");
      const promql::VectorSample* s = find_by(share, "device", dev);
      const promql::VectorSample* a = find_by(await, "device", dev);
      double sh = s ? s->v : 0, aw = a ? a->v : 0;
      const bool busy_long = b.v >= 0.9 && sh >= 0.6;
      const bool slow = aw >= 0.05 && b.v >= 0.5;  // 50 ms a request: queueing even for a spinning disk
      if (!busy_long && !slow) continue;
      if (!asked) {
        queue = ctx.query(queue_q);
        writes = ctx.query(write_q);
        reads = ctx.query(read_q);
        fs = ctx.query(ctx.sel("node_filesystem_size_bytes"));
        asked = true;
      }
      Finding f = ctx.finding(kind::kDiskSaturation, Severity::kWarning);
      f.subject = subject_of(b, {"device", "instance"});
      if (std::string mp = mountpoint_of(fs, dev); !mp.empty()) f.subject["mountpoint"] = mp;
      f.confidence = std::clamp(0.5 + 0.4 * sh + (slow ? 0.1 : 0.0), 0.0, 0.98);
      const promql::VectorSample* wr = find_by(writes, "device", dev);
      const promql::VectorSample* rd = find_by(reads, "device", dev);
      const promql::VectorSample* q = find_by(queue, "device", dev);
      std::string where = std::string(dev);
      if (f.subject.count("mountpoint")) where += " (" + f.subject["mountpoint"] + ")";
      f.summary = strf("disk %s busy %.0f %% over %s (90 %% or more for %.0f %% of it); await %.1f ms", where.c_str(),
                       b.v * 100, w.c_str(), sh * 100, aw * 1000);
      if (wr && rd) f.summary += strf("; writing %.0f MB/s, reading %.0f MB/s", wr->v / 1e6, rd->v / 1e6);
      f.evidence = {{busy_q, b.v, "share of the window the device was busy"},
                    {share_q, sh, "share of the window at 90 % busy or more"}};
      if (a) f.evidence.push_back({await_q, aw, "mean time per request (await), s"});
      if (q) f.evidence.push_back({queue_q, q->v, "mean requests in flight (queue depth)"});
      if (wr) f.evidence.push_back({write_q, wr->v, "written, bytes/s"});
      if (rd) f.evidence.push_back({read_q, rd->v, "read, bytes/s"});
      f.advice =
          "The disk is at its limit: find the writer or reader (`iotop -o`, `pidstat -d 5`), move it off the "
          "disk the job reads its data or writes its checkpoints on, or throttle it (`ionice -c3`, "
          "`rsync --bwlimit`); keep the dataset, checkpoints and scratch on separate devices.";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Detector> make_disk_saturation() {
  return std::make_unique<DiskSaturation>();
}

}  // namespace llmon::diagnose
