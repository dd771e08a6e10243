// `llmon agent`: collect every interval, serve /metrics and the query API
// (query_api.h) over the store, stop cleanly on SIGTERM/SIGINT (main()
// blocks them in every thread and sigwaits).
#include <sys/resource.h>

#include <chrono>
#include <thread>

#include "app/commands.h"
#include "app/query_api.h"
#include "app/setup.h"
#include "app/snapshot_sink.h"
#include "app/storage_setup.h"
#include "app/tsdb_metrics.h"
#include "http/server.h"
#include "promql/engine.h"
#include "tsdb/db.h"

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
  // The store: a failure to open it is logged and the agent runs without
  // history rather than not at all.
  std::unique_ptr<tsdb::Db> db;
  TsdbMetricsSources tsdb_sources;
  if (s.get_bool("storage.enabled")) {
    auto opened = tsdb::Db::open(db_options(s), log, clock);
    if (opened) {
      db = std::move(*opened);
      tsdb_sources.db = db.get();
      collectors.push_back({"tsdb", make_tsdb_collector(tsdb_sources)});
    } else {
      log.error("cannot open the time-series store; running without history", {{"err", opened.error()}});
    }
  }
  // The PromQL engine over the store; without a store the query API answers
  // `unavailable`.
  std::unique_ptr<promql::Engine> engine;
  if (db) {
    promql::EngineOptions eo;
    eo.timeout = std::chrono::milliseconds(s.get_duration_ms("query.timeout"));
    eo.max_concurrent = static_cast<int>(s.get_int("query.max-concurrency"));
    eo.max_samples = s.get_int("query.max-samples");
    eo.lookback_delta_ms = s.get_duration_ms("query.lookback-delta");
    engine = std::make_unique<promql::Engine>(*db, eo);
  }
  std::string names;
  for (const auto& c : collectors) names += (names.empty() ? "" : ",") + c.name;
  log.info("starting llmon agent", {{"version", kVersion}, {"collectors", names}});

  collector::Scheduler sched(std::move(collectors), clock, log, s.get_duration_ms("collect.interval"));
  std::unique_ptr<SnapshotSink> sink;
  if (db) {
    sink = std::make_unique<SnapshotSink>(*db);
    sched.add_sink(sink.get());
  }
  http::MetricsPage page([&sched] { return sched.latest(); });
  http::ServerOptions opts;
  opts.listen_address = s.get("web.listen-address");
  opts.telemetry_path = s.get("web.telemetry-path");
  opts.max_connections = static_cast<int>(s.get_int("web.max-requests"));
  opts.version = kVersion;
  http::Server server(opts, page, log);
  std::shared_ptr<ImportRoute> import_route;
  if (db && s.get_bool("web.enable-import")) {
    auto route = register_import_route(server, *db, clock, log);
    if (route) {
      import_route = std::move(*route);
      tsdb_sources.import.store(import_route.get(), std::memory_order_release);
    } else {
      log.error("cannot register the import endpoint", {{"err", route.error()}});
    }
  }
  QueryApiOptions qo;
  qo.version = kVersion;
  if (!s.get_bool("storage.enabled"))
    qo.unavailable_reason = "this endpoint needs the time-series store, which is disabled (--storage.enabled=false)";
  auto query_api = std::make_shared<QueryApi>(
      db.get(), engine.get(), [&sched] { return sched.latest(); }, clock, std::move(qo));
  if (Status st = register_query_api(server, query_api); !st)
    log.error("cannot register the query API", {{"err", st.message()}});
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
  if (db) {
    if (Status st = db->close(); !st) log.error("closing the time-series store", {{"err", st.message()}});
  }
  log.info("stopped");
  return 0;
}

}  // namespace llmon::app
