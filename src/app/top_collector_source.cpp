// Standalone `llmon top`: the collectors, one cycle per refresh, each
// summarised against the previous one; history is what it saw since start.
#include <map>

#include "app/top_source.h"
#include "summary/host_summary.h"

namespace llmon::app {
namespace {

std::string failed_message(const summary::HostSummary& s) {
  if (s.failed_collectors.empty()) return "";
  std::string m = "failed collectors:";
  for (const auto& c : s.failed_collectors) m += " " + c;
  return m;
}

class CollectorSource : public TopSource {
 public:
  CollectorSource(collector::Scheduler& sched, int64_t interval_ms) : sched_(sched), interval_ms_(interval_ms) {}

  std::string refresh(int64_t now_ms, const TopWants& w, top::TopData& d) override {
    model::SnapshotPtr cur = sched_.run_cycle(now_ms);
    if (!prev_) {
      prev_ = std::move(cur);
      return "collecting (first " + std::to_string(interval_ms_) + " ms)";
    }
    d.sum = summary::summarize(*prev_, *cur);
    summary::mark_no_data(d.sum, sched_.no_data_collectors());
    d.sum.interval_s = static_cast<double>(interval_ms_) / 1000.0;  // the title shows the nominal one
    d.hist.record(d.sum.gpus);
    prev_ = std::move(cur);
    // GPU memory of each process over time (several rows of one pid: summed).
    std::map<std::string, double> mem;
    for (const auto& p : d.sum.gpus.processes)
      if (p.gpu_mem_bytes) mem[p.pid] += *p.gpu_mem_bytes;
    for (auto it = mem_.begin(); it != mem_.end();) it = mem.count(it->first) ? std::next(it) : mem_.erase(it);
    for (const auto& [pid, b] : mem) mem_.try_emplace(pid, 300).first->second.push(b);
    auto it = mem_.find(w.selected_pid);
    d.detail_mem = it == mem_.end() ? top::Ring(300) : it->second;
    return failed_message(d.sum);
  }

  bool local() const override { return true; }

 private:
  collector::Scheduler& sched_;
  int64_t interval_ms_;
  model::SnapshotPtr prev_;
  std::map<std::string, top::Ring> mem_;
};

}  // namespace

std::unique_ptr<TopSource> collector_source(collector::Scheduler& sched, int64_t interval_ms) {
  return std::make_unique<CollectorSource>(sched, interval_ms);
}

}  // namespace llmon::app
