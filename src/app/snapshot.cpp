// `llmon snapshot [--json]`: two collection cycles --snapshot.interval
// apart, summarised by host_summary (rates from the deltas), GPUs and GPU
// processes included (gpu_summary, called by summarize()).
//
// The NVML event watcher is off here unless --collector.gpu.events is given
// explicitly: it could only count Xid events of the snapshot's own second,
// and stopping it waits for nvmlEventSetWait's timeout (500 ms), which made
// a snapshot take 0.56 s on a real H200 against nvidia-smi's 0.03 s.
#include <chrono>
#include <thread>

#include "app/commands.h"
#include "app/health_setup.h"
#include "app/setup.h"
#include "app/snapshot_apps.h"
#include "app/snapshot_findings.h"
#include "summary/host_summary.h"

namespace llmon::app {

int run_snapshot(const config::Settings& settings, std::FILE* out) {
  config::Settings s = settings;
  s.replace_default(config::flag::kCollectorGpuEvents, "false");
  auto level = base::parse_log_level(s.get(config::flag::kLogLevel));
  base::Logger log(level ? *level : base::LogLevel::kWarn);
  base::SystemClock clock;
  // GPU health from the snapshot's own cycles (nothing persisted: the
  // agent's state is the agent's).
  health::HealthOptions ho;
  ho.boot_id = boot_id(s);
  auto health = std::make_shared<health::HealthTracker>(std::move(ho), clock);
  collector::Scheduler sched(enabled_collectors(s, clock, log, health), clock, log, 1000);
  int64_t interval_ms = s.get(config::flag::kSnapshotInterval);
  if (interval_ms <= 0) interval_ms = 1000;
  // Copies: the scheduler recycles snapshot buffers between cycles.
  model::Snapshot first = *sched.run_cycle(clock.now_ms());
  // Applications (--scrape.config, --scrape.discover): a page after each cycle.
  std::vector<std::string> problems;
  auto apps = SnapshotApps::create(s, first, clock.now_ms(), problems);
  const auto wake = std::chrono::steady_clock::now() + std::chrono::milliseconds(interval_ms);
  int64_t first_fetch_ms = 0;
  if (apps) {
    first_fetch_ms = clock.now_ms();
    apps->fetch_first();
  }
  std::this_thread::sleep_until(wake);
  model::Snapshot second = *sched.run_cycle(clock.now_ms());
  int64_t second_fetch_ms = 0;
  if (apps) {
    second_fetch_ms = clock.now_ms();
    apps->fetch_second();
  }
  summary::HostSummary sum = summary::summarize(first, second);
  summary::mark_no_data(sum, sched.no_data_collectors());
  if (apps) {
    sum.apps = apps->rows(static_cast<double>(second_fetch_ms - first_fetch_ms) / 1000.0);
    summary::attach_gpus(sum.apps, sum.gpus);
  }
  add_agent_findings(s, sum);
  for (const std::string& p : problems) std::fprintf(stderr, "llmon snapshot: %s\n", p.c_str());
  std::string text = s.get(config::flag::kJson) ? summary::format_json(sum) : summary::format_text(sum);
  std::fwrite(text.data(), 1, text.size(), out);
  return 0;
}

}  // namespace llmon::app
