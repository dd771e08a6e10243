// `llmon snapshot [--json]`: two collection cycles --snapshot.interval
// apart, summarised by host_summary (rates from the deltas), GPUs and GPU
// processes included (gpu_summary, called by summarize()).
#include <chrono>
#include <thread>

#include "app/commands.h"
#include "app/host_summary.h"
#include "app/setup.h"

namespace llmon::app {

int run_snapshot(const config::Settings& s, std::FILE* out) {
  auto level = base::parse_log_level(s.get("log.level"));
  base::Logger log(level ? *level : base::LogLevel::kWarn);
  base::SystemClock clock;
  collector::Scheduler sched(enabled_collectors(s, clock, log), clock, log, 1000);
  int64_t interval_ms = s.get_duration_ms("snapshot.interval");
  if (interval_ms <= 0) interval_ms = 1000;
  // Copies: the scheduler recycles snapshot buffers between cycles.
  model::Snapshot first = *sched.run_cycle(clock.now_ms());
  std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  model::Snapshot second = *sched.run_cycle(clock.now_ms());
  HostSummary sum = summarize(first, second);
  std::string text = s.get_bool("json") ? format_json(sum) : format_text(sum);
  std::fwrite(text.data(), 1, text.size(), out);
  return 0;
}

}  // namespace llmon::app
