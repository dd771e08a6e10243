// `llmon agent`: collect every interval, serve /metrics, stop cleanly on
// SIGTERM/SIGINT (main() turns the signal into stop_requested).
#include <chrono>
#include <thread>

#include "app/commands.h"
#include "app/setup.h"
#include "http/server.h"

namespace llmon::app {

int run_agent(const config::Settings& s, std::atomic<bool>& stop_requested) {
  auto level = base::parse_log_level(s.get("log.level"));
  base::Logger log(level ? *level : base::LogLevel::kInfo);
  if (!level) log.warn("unknown log level, using info", {{"log.level", s.get("log.level")}});
  base::SystemClock clock;

  auto collectors = enabled_collectors(s, clock, log);
  std::string names;
  for (const auto& c : collectors) names += (names.empty() ? "" : ",") + c.name;
  log.info("starting llmon agent", {{"version", kVersion}, {"collectors", names}});

  collector::Scheduler sched(std::move(collectors), clock, log, s.get_duration_ms("collect.interval"));
  http::MetricsPage page([&sched] { return sched.latest(); });
  http::ServerOptions opts;
  opts.listen_address = s.get("web.listen-address");
  opts.telemetry_path = s.get("web.telemetry-path");
  opts.worker_threads = static_cast<int>(s.get_int("web.max-requests"));
  opts.version = kVersion;
  http::Server server(opts, page, log);
  if (Status st = server.start(); !st) {
    log.error("cannot start HTTP server", {{"err", st.message()}});
    return 1;
  }
  log.info("listening", {{"address", opts.listen_address}, {"port", std::to_string(server.port())}});

  // First cycle right away so /metrics is ready at once; then aligned ticks.
  sched.run_cycle(clock.now_ms());
  std::thread collect_thread([&sched] { sched.run(); });
  while (!stop_requested.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  log.info("shutting down");
  sched.stop();
  collect_thread.join();
  server.stop();
  log.info("stopped");
  return 0;
}

}  // namespace llmon::app
