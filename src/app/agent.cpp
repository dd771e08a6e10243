// `llmon agent`: collect every interval, serve /metrics and the query API
// (query_api.h) over the store, stop cleanly on SIGTERM/SIGINT (main()
// blocks them in every thread and sigwaits).
#include <malloc.h>
#include <sys/resource.h>

#include <chrono>
#include <thread>

#include "api/datasource_proxy.h"
#include "api/diagnosis_route.h"
#include "api/events_route.h"
#include "api/health_route.h"
#include "api/notify_routes.h"
#include "api/push_route.h"
#include "api/query_api.h"
#include "api/targets_route.h"
#include "app/agent_client.h"
#include "app/alerting.h"
#include "app/commands.h"
#include "app/diagnosis_loop.h"
#include "app/health_setup.h"
#include "app/logwatch_metrics.h"
#include "app/logwatch_setup.h"
#include "app/notify_setup.h"
#include "app/push_setup.h"
#include "app/remote_write_setup.h"
#include "app/rule_loading.h"
#include "app/scrape_setup.h"
#include "app/setup.h"
#include "app/storage_setup.h"
#include "app/trace_capture.h"
#include "app/tsdb_metrics.h"
#include "base/footprint.h"
#include "base/strings.h"
#include "collector/registry.h"
#include "diagnose/detector.h"
#include "http/server.h"
#include "ingest/snapshot_sink.h"
#include "logwatch/watcher.h"
#include "promql/engine.h"
#include "tsdb/db.h"
#include "web/dashboard.h"
#include "websec/web_security.h"

namespace llmon::app {

namespace {

std::vector<std::string> admin_user_list(const std::string& csv) {
  std::vector<std::string> out;
  for (std::string_view u : base::split(csv, ','))
    if (!u.empty()) out.emplace_back(u);
  return out;
}

// Collectors keep sysfs/procfs files open (about 10 per CPU); like Go programs
// since 1.19, raise the soft open-file limit to the hard limit.
void raise_fd_limit(base::Logger& log) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max) return;
  rlim_t old = rl.rlim_cur;
  rl.rlim_cur = rl.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0) log.warn("cannot raise the open-file limit", {{"soft", std::to_string(old)}});
}

// Query answers and their intermediate series are up to megabytes that live
// for one request. With glibc's adaptive thresholds, and the rule evaluator
// and collectors allocating on other threads, such blocks were mapped fresh
// and handed back at every request: a 24 h `avg_over_time` took 7 ms instead
// of 3.7 with the built-in rule pack running (docs/performance.md, PromQL
// section). Fixed thresholds keep up to 32 MiB of freed memory per arena for
// the next request instead.
void tune_malloc() {
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
  mallopt(M_TRIM_THRESHOLD, 32 << 20);
}

}  // namespace

int run_agent(const config::Settings& s, const std::function<AgentSignal()>& wait_for_signal) {
  auto level = base::parse_log_level(s.get(config::flag::kLogLevel));
  base::Logger log(level ? *level : base::LogLevel::kInfo);
  if (!level) log.warn("unknown log level, using info", {{"log.level", s.get(config::flag::kLogLevel)}});
  base::SystemClock clock;
  raise_fd_limit(log);
  tune_malloc();

  // GPU health: fed by the gpu collector (NVML) and the log watcher (kernel
  // lines), read by /api/v1/health.
  std::shared_ptr<health::HealthTracker> health_tracker = make_health_tracker(s, clock, log);
  auto collectors = enabled_collectors(s, clock, log, health_tracker);
  // The store: a failure to open it is logged and the agent runs without
  // history rather than not at all.
  std::unique_ptr<tsdb::Db> db;
  TsdbMetricsSources tsdb_sources;
  if (s.get(config::flag::kStorageEnabled)) {
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
    eo.timeout = std::chrono::milliseconds(s.get(config::flag::kQueryTimeout));
    eo.max_concurrent = static_cast<int>(s.get(config::flag::kQueryMaxConcurrency));
    eo.max_samples = s.get(config::flag::kQueryMaxSamples);
    eo.lookback_delta_ms = s.get(config::flag::kQueryLookbackDelta);
    engine = std::make_unique<promql::Engine>(*db, eo);
  }
  // On-demand PyTorch profiler traces (--trace.capture-dir): before the
  // notifications, whose trace_capture receivers use it.
  std::unique_ptr<TraceCapture> trace_capture;
  {
    auto tc = TraceCapture::create(s, clock, log);
    if (!tc)
      log.error("trace capture disabled", {{"err", tc.error()}});
    else
      trace_capture = std::move(*tc);
  }
  // Rule evaluation over the store (the built-in pack and --rules.file).
  // Notifications (Alertmanager, llmon's own routing) outlive the rules that feed them.
  std::unique_ptr<notify::Pipeline> notifications;
  std::unique_ptr<Alerting> alerting;
  if (engine) {
    auto hp = http::split_host_port(s.get(config::flag::kWebListenAddress));
    auto ao = alerting_options(s, hp ? hp->second : 0);
    if (!ao) {
      log.error("alerting disabled", {{"err", ao.error()}});
    } else {
      auto& g = ao->manager.group;
      g.storage = db.get();
      g.engine = engine.get();
      g.clock = &clock;
      g.logger = &log;
      if (!s.get(config::flag::kAlertmanagerUrl).empty() || !s.get(config::flag::kNotifyConfig).empty()) {
        // The rules add the external labels to the alerts they send.
        auto po = notify_setup_options(s, g.external_url, {});
        if (trace_capture) po.trace_capture = trace_capture->hook();
        auto n = notify::Pipeline::create(std::move(po), clock, log);
        if (n) {
          notifications = std::move(*n);
          collectors.push_back({"notify", make_notify_collector(*notifications)});
          g.notify = [np = notifications.get()](std::vector<notify::Alert> alerts) { np->send(std::move(alerts)); };
        } else {
          log.error("notifications disabled: alerts are evaluated but not sent", {{"err", n.error()}});
        }
      }
      alerting = std::make_unique<Alerting>(std::move(*ao), log);
      alerting->reload();  // errors are logged; the agent runs without those rules
      collectors.push_back({"rules", alerting->make_collector()});
    }
  } else {
    log.warn("rules are not evaluated: they need the time-series store");
  }
  // The log watcher (kernel log and --logwatch.path): its counters are a
  // collector; it starts once every listener is in place.
  std::unique_ptr<logwatch::Watcher> watcher;
  std::vector<std::unique_ptr<logwatch::Forwarder>> forwarders;  // --logwatch.forward.*
  if (s.get(config::flag::kLogwatchEnabled)) {
    logwatch::WatcherOptions wo = watcher_options(s);
    LogRulesResult lr =
        load_log_rules(s.get(config::flag::kLogwatchDefaultRules), split_list(s.get(config::flag::kLogwatchRules)));
    for (const std::string& e : lr.errors) log.error("log rules left out", {{"err", e}});
    wo.rules = std::move(lr.rules);
    auto w = logwatch::Watcher::open(std::move(wo), clock, log);
    if (w) {
      watcher = std::move(*w);
      // Kernel lines feed GPU health; events of a GPU's PCI address name it.
      watcher->set_kernel_hook([t = health_tracker](std::string_view text, int64_t time_ms, const std::string& boot) {
        t->observe_kernel_line(text, time_ms, boot);
      });
      watcher->set_enricher([t = health_tracker](logwatch::Event& e) { add_gpu_labels(*t, e); });
      collectors.push_back({"logwatch", make_logwatch_collector(*watcher)});
      auto fw = make_forwarders(s, clock, system_hostname());
      if (!fw) {
        log.error("log forwarding disabled", {{"err", fw.error()}});
      } else if (!fw->empty()) {
        forwarders = std::move(*fw);
        std::vector<const logwatch::Forwarder*> seen;
        for (const auto& f : forwarders) {
          seen.push_back(f.get());
          watcher->add_listener([p = f.get()](const std::vector<logwatch::Event>& ev) { p->enqueue(ev); });
        }
        collectors.push_back({"logwatch_forward", make_forward_collector(std::move(seen))});
      }
    } else {
      log.error("log watching disabled", {{"err", w.error()}});
    }
  }
  // Application targets (--scrape.config, --scrape.discover) into the store.
  // The scheduler comes later; discovery reads its cycles through this.
  std::atomic<collector::Scheduler*> sched_ptr{nullptr};
  std::unique_ptr<ScrapeService> scraping;
  if (db) {
    auto hp = http::split_host_port(s.get(config::flag::kWebListenAddress));
    auto svc = ScrapeService::create(
        s, *db, clock, log,
        [&sched_ptr]() -> model::SnapshotPtr {
          auto* p = sched_ptr.load();
          return p ? p->latest() : nullptr;
        },
        hp ? static_cast<uint16_t>(hp->second) : 0);
    if (!svc) {
      log.error("scraping disabled", {{"err", svc.error()}});
    } else if (*svc) {
      scraping = std::move(*svc);
      collectors.push_back({"scrape", scraping->make_collector()});
    }
  } else if (!s.get(config::flag::kScrapeConfig).empty() || !s.get(config::flag::kScrapeDiscover).empty()) {
    log.warn("--scrape.config and --scrape.discover are not used: scraping needs the time-series store");
  }
  // remote_write (--remote-write.config): queues fed from the store's WAL.
  std::unique_ptr<RemoteWrite> remote_write;
  if (db) {
    // The metadata the queues send: the collected families (the latest
    // cycle) first, then the scraped targets' (# HELP/# TYPE/# UNIT).
    remote::MetadataFn metadata = [&sched_ptr, m = scraping ? &scraping->manager() : nullptr] {
      std::vector<remote::WriteMetadata> out;
      auto* sched = sched_ptr.load();
      if (model::SnapshotPtr snap = sched ? sched->latest() : nullptr)
        for (const model::Family& f : snap->families)
          out.push_back({remote::metric_type_number(model::type_name(f.type)), f.name, f.help, {}});
      if (m)
        for (auto& e : api::scraped_metadata(*m))
          out.push_back(
              {remote::metric_type_number(e.type), std::move(e.metric), std::move(e.help), std::move(e.unit)});
      return out;
    };
    auto rw = RemoteWrite::create(s, *db, clock, log, std::move(metadata));
    if (!rw) {
      log.error("remote_write disabled", {{"err", rw.error()}});
    } else if (*rw) {
      remote_write = std::move(*rw);
      remote_write->start();
      collectors.push_back({"remote_write", remote_write->make_collector()});
    }
  }
  // Pushgateway-style pushes (--web.enable-push) into the store.
  std::unique_ptr<scrape::PushIngest> pushes;
  if (db) {
    pushes = make_push_ingest(s, *db, clock, log);
    if (pushes) {
      pushes->start();  // loads the saved groups before the route takes pushes
      collectors.push_back({"push", make_push_collector(*pushes)});
    }
  } else if (s.get(config::flag::kWebEnablePush)) {
    log.warn("--web.enable-push is not used: pushes are stored in the time-series store, which is off");
  }
  std::string names;
  for (const auto& c : collectors) names += (names.empty() ? "" : ",") + c.name;
  log.info("starting llmon agent", {{"version", kVersion}, {"collectors", names}});

  collector::Scheduler sched(std::move(collectors), clock, log, s.get(config::flag::kCollectInterval));
  sched_ptr.store(&sched);
  std::vector<std::string> known_collectors;
  for (const auto& c : collector::builtin_collectors()) known_collectors.emplace_back(c.name);
  http::MetricsPage page([&sched] { return sched.latest(); }, std::move(known_collectors));
  http::ServerOptions opts;
  opts.listen_address = s.get(config::flag::kWebListenAddress);
  opts.telemetry_path = s.get(config::flag::kWebTelemetryPath);
  opts.max_connections = static_cast<int>(s.get(config::flag::kWebMaxRequests));
  opts.version = kVersion;
  std::shared_ptr<websec::WebSecurity> web_security;
  if (const std::string web_config = s.get(config::flag::kWebConfigFile); !web_config.empty()) {
    auto sec = websec::open_web_security(web_config, admin_user_list(s.get(config::flag::kWebAdminUsers)), log);
    if (!sec) {
      log.error("bad --web.config.file", {{"err", sec.error()}});
      return 1;
    }
    web_security = *sec;
    opts.transport = web_security->transport();
    opts.guard = web_security;
    log.info("web config loaded", {{"file", web_config}, {"tls", web_security->tls() ? "true" : "false"}});
  }
  http::Server server(opts, page, log);
  std::shared_ptr<api::ImportRoute> import_route;
  if (db && s.get(config::flag::kWebEnableImport)) {
    auto route = api::register_import_route(server, *db, clock, log);
    if (route) {
      import_route = std::move(*route);
      tsdb_sources.import.store(import_route.get(), std::memory_order_release);
    } else {
      log.error("cannot register the import endpoint", {{"err", route.error()}});
    }
  }
  api::QueryApiOptions qo;
  qo.version = kVersion;
  qo.flags = [&s, &server] { return flag_values(s, server.port(), system_hostname); };
  if (scraping) qo.extra_metadata = [m = &scraping->manager()] { return api::scraped_metadata(*m); };
  if (!s.get(config::flag::kStorageEnabled))
    qo.unavailable_reason = "this endpoint needs the time-series store, which is disabled (--storage.enabled=false)";
  auto query_api = std::make_shared<api::QueryApi>(
      db.get(), engine.get(), [&sched] { return sched.latest(); }, clock, std::move(qo));
  if (Status st = api::register_query_api(server, query_api); !st)
    log.error("cannot register the query API", {{"err", st.message()}});
  if (engine) {
    api::DiagnosisRouteOptions dro;
    auto prices = diagnose::parse_gpu_prices(s.get(config::flag::kDiagnoseGpuPrice));
    if (!prices) log.error("diagnosis uses the default GPU prices", {{"err", prices.error()}});
    dro.gpu_price = prices ? std::move(*prices) : diagnose::default_gpu_prices();
    dro.default_window_ms = s.get(config::flag::kWindow);
    dro.default_selector = [&s, &server] {
      std::string m = s.get(config::flag::kDiagnoseSelector);
      if (!m.empty()) return m;
      for (const model::Label& l : self_sink_options(s, server.port(), system_hostname).target_labels)
        m += (m.empty() ? "" : ",") + l.name + "=\"" + l.value + "\"";
      return m;
    };
    if (Status st = api::register_diagnosis_route(server, *engine, clock, std::move(dro)); !st)
      log.error("cannot register the diagnosis API", {{"err", st.message()}});
  }
  if (pushes) {
    if (Status st = api::register_push_route(server, *pushes); !st)
      log.error("cannot serve the push API", {{"err", st.message()}});
  }
  if (Status st = api::register_targets_routes(server, scraping ? &scraping->manager() : nullptr); !st)
    log.error("cannot register the targets API", {{"err", st.message()}});
  if (Status st = api::register_health_routes(server, health_tracker); !st)
    log.error("cannot register the health API", {{"err", st.message()}});
  if (watcher) {
    if (Status st = api::register_events_route(server, watcher->journal_dir()); !st)
      log.error("cannot register the events API", {{"err", st.message()}});
  }
  if (alerting) {
    if (trace_capture)
      alerting->set_snapshot_decorator(
          [tc = trace_capture.get()](std::vector<rules::GroupSnapshot>& groups) { tc->annotate(groups); });
    if (Status st = alerting->register_routes(server); !st)
      log.error("cannot register the rules API", {{"err", st.message()}});
  }
  if (notifications) {
    if (Status st = api::register_notify_routes(server, *notifications, clock); !st)
      log.error("cannot register the silence API", {{"err", st.message()}});
  }
  if (trace_capture) {
    if (Status st = trace_capture->register_routes(server); !st)
      log.error("cannot register the trace capture API", {{"err", st.message()}});
  }
  if (const std::string& ds = s.get(config::flag::kUiDatasource); !ds.empty()) {
    api::DatasourceOptions dso;
    dso.url = ds;
    dso.node_label = s.get(config::flag::kUiDatasourceNodeLabel);
    Status st = apply_http_config_file(s.get(config::flag::kUiDatasourceHttpConfigFile), dso.client);
    if (st) st = api::register_datasource_routes(server, std::move(dso));
    if (!st) log.error("cannot serve the fleet data source", {{"err", st.message()}, {"url", ds}});
  }
  if (!web::dashboard_assets().empty()) {
    if (Status st = web::register_dashboard(server, web::dashboard_assets()); !st)
      log.error("cannot serve the dashboard", {{"err", st.message()}});
  }
  if (Status st = server.start(); !st) {
    log.error("cannot start HTTP server", {{"err", st.message()}});
    if (scraping) scraping->stop();
    if (pushes) pushes->stop();
    return 1;
  }
  log.info("listening", {{"address", opts.listen_address}, {"port", std::to_string(server.port())}});
  // The agent's own history is stored as Prometheus would store a scrape of
  // it: with job and instance (the port actually bound, for --web.listen-address=:0).
  std::unique_ptr<ingest::SnapshotSink> sink;
  if (db) {
    sink = std::make_unique<ingest::SnapshotSink>(*db, self_sink_options(s, server.port(), system_hostname));
    sched.add_sink(sink.get());
  }

  // First cycle right away so /metrics is ready at once; then aligned ticks.
  // The log watcher starts after it: the GPUs are enumerated by then, so the
  // kernel log's backlog maps to them (events get their gpu and UUID).
  sched.run_cycle(clock.now_ms());
  if (watcher) watcher->start();
  std::thread collect_thread([&sched] { sched.run(); });
  if (alerting) alerting->start();
  if (scraping) (void)scraping->reload();  // errors are logged; the agent runs on without the targets
  // The continuous diagnosis: findings as series for the rules and the dashboard.
  std::unique_ptr<DiagnosisLoop> diagnosis;
  if (engine && db && s.get(config::flag::kDiagnoseInterval) > 0) {
    diagnose::Options o;
    o.window_ms = s.get(config::flag::kWindow);
    auto prices = diagnose::parse_gpu_prices(s.get(config::flag::kDiagnoseGpuPrice));
    o.gpu_price = prices ? std::move(*prices) : diagnose::default_gpu_prices();
    auto target = self_sink_options(s, server.port(), system_hostname).target_labels;
    o.selector = s.get(config::flag::kDiagnoseSelector);
    for (const model::Label& l : target)
      if (s.get(config::flag::kDiagnoseSelector).empty())
        o.selector += (o.selector.empty() ? "" : ",") + l.name + "=\"" + l.value + "\"";
    diagnosis =
        std::make_unique<DiagnosisLoop>(*engine, *db, clock, log, std::move(o), std::move(target),
                                        s.get(config::flag::kDiagnoseInterval), s.get(config::flag::kDiagnoseAnomaly));
    diagnosis->start();
  }
  base::release_free_heap();  // base/footprint.h: what start-up compiled, dropped
  base::release_code_pages();
  while (wait_for_signal() == AgentSignal::kReload) {
    log.info("SIGHUP: reloading rules, the scrape config and remote_write");
    if (alerting) alerting->reload();
    if (scraping) (void)scraping->reload();
    if (remote_write) {
      if (Status st = remote_write->reload(); !st) log.error("remote_write reload failed", {{"err", st.message()}});
    }
    base::release_free_heap();
    base::release_code_pages();
  }
  log.info("shutting down");
  if (diagnosis) diagnosis->stop();
  if (scraping) scraping->stop();
  if (pushes) pushes->stop();
  if (alerting) alerting->stop();
  if (notifications) notifications->stop();
  if (trace_capture) trace_capture->stop();
  sched.stop();
  collect_thread.join();
  if (watcher) watcher->stop();  // commits the last positions
  for (auto& f : forwarders) f->stop();
  server.stop();
  if (remote_write) remote_write->stop();
  if (db) {
    if (Status st = db->close(); !st) log.error("closing the time-series store", {{"err", st.message()}});
  }
  log.info("stopped");
  return 0;
}

}  // namespace llmon::app
