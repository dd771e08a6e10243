// `llmon agent`: collect every interval, serve /metrics, stop cleanly on
// SIGTERM/SIGINT (main() blocks them in every thread and sigwaits).
#include <sys/resource.h>

#include <chrono>
#include <thread>

#include "app/commands.h"
#include "app/setup.h"
#include "http/server.h"

namespace llmon::app {

namespace {

// Collectors keep sysfs/procfs files open (about 10 per CPU); like Go programs
// since 1.19, raise the soft open-file limit to the hard limit.
void raise_fd_limit(base::Logger& log) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max) return;
  rlim_t old = rl.rlim_cur;
  rl.rlim_cur = rl.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
    log.warn("cannot raise the open-file limit", {{"soft", std::to_string(old)}});
}

}  // namespace

int run_agent(const config::Settings& s, const std::function<void()>& wait_for_stop) {
  auto level = base::parse_log_level(s.get("log.level"));
  base::Logger log(level ? *level : base::LogLevel::kInfo);
  if (!level) log.warn("unknown log level, using info", {{"log.level", s.get("log.level")}});
  base::SystemClock clock;
  raise_fd_limit(log);

  auto collectors = enabled_collectors(s, clock, log);
  std::string names;
  for (const auto& c : collectors) names += (names.empty() ? "" : ",") + c.name;
  log.info("starting llmon agent", {{"version", kVersion}, {"collectors", names}});

  collector::Scheduler sched(std::move(collectors), clock, log, s.get_duration_ms("collect.interval"));
  http::MetricsPage page([&sched] { return sched.latest(); });
  http::ServerOptions opts;
  opts.listen_address = s.get("web.listen-address");
  opts.telemetry_path = s.get("web.telemetry-path");
  opts.max_connections = static_cast<int>(s.get_int("web.max-requests"));
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
  wait_for_stop();
  log.info("shutting down");
  sched.stop();
  collect_thread.join();
  server.stop();
  log.info("stopped");
  return 0;
}

}  // namespace llmon::app
