#include "app/notify_setup.h"

#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/rule_loading.h"
#include "notify/email.h"
#include "notify/email_mime.h"
#include "notify/exec_action.h"
#include "go/json.h"
#include "notify/notification_codec.h"
#include "notify/silence_json.h"
#include "notify/webhook.h"

namespace llmon::app {

namespace {

// A *_file setting: the file's bytes without a trailing newline.
Expected<std::string> read_secret(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(std::string(what) + ": cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

Expected<notify::EmailSenderConfig> email_config(const notify::EmailNotifierConfig& c, const std::string& where) {
  notify::EmailSenderConfig e;
  auto to = notify::parse_address_list(c.to);
  if (!to) return Status::error(where + ": to: " + to.error());
  for (const auto& a : *to) e.to.push_back(notify::format_mail_address(a));
  e.from = c.from;
  e.smarthost = c.smarthost;
  e.hello = c.hello;
  e.auth_username = c.auth_username;
  e.auth_password = c.auth_password;
  if (!c.auth_password_file.empty()) {
    auto p = read_secret(c.auth_password_file, where + ": auth_password_file");
    if (!p) return Status::error(p.error());
    e.auth_password = *p;
  }
  if (!c.auth_secret.empty()) return Status::error(where + ": auth_secret (CRAM-MD5) is not supported; use auth_password");
  e.auth_identity = c.auth_identity;
  e.require_tls = c.require_tls;
  e.tls.ca_file = c.tls_config.ca_file;
  e.tls.cert_file = c.tls_config.cert_file;
  e.tls.key_file = c.tls_config.key_file;
  e.tls.server_name = c.tls_config.server_name;
  e.tls.insecure_skip_verify = c.tls_config.insecure_skip_verify;
  e.headers = c.headers;
  e.send_resolved = c.send_resolved;
  return e;
}

Expected<notify::WebhookConfig> webhook_config(const notify::WebhookNotifierConfig& c, const std::string& where) {
  notify::WebhookConfig w;
  w.url = c.url;
  w.max_alerts = c.max_alerts;
  w.send_resolved = c.send_resolved;
  const auto& h = c.http_config;
  if (!h.tls_config.cert_file.empty() || !h.tls_config.key_file.empty())
    return Status::error(where + ": http_config.tls_config: client certificates are not supported");
  w.http.tls_ca_file = h.tls_config.ca_file;
  w.http.tls_server_name = h.tls_config.server_name;
  w.http.tls_insecure_skip_verify = h.tls_config.insecure_skip_verify;
  if (h.basic_auth) {
    w.http.basic_auth_username = h.basic_auth->username;
    w.http.basic_auth_password = h.basic_auth->password;
    if (!h.basic_auth->password_file.empty()) {
      auto p = read_secret(h.basic_auth->password_file, where + ": basic_auth.password_file");
      if (!p) return Status::error(p.error());
      w.http.basic_auth_password = *p;
    }
  }
  w.http.bearer_token = h.bearer_token;
  if (!h.bearer_token_file.empty()) {
    auto p = read_secret(h.bearer_token_file, where + ": bearer_token_file");
    if (!p) return Status::error(p.error());
    w.http.bearer_token = *p;
  }
  return w;
}

// Delivery queue target names double as metric label values and API keys.
std::string target_name(std::string_view receiver, std::string_view integration) {
  return std::string(receiver) + "/" + std::string(integration);
}

class NotifyCollector final : public collector::Collector {
 public:
  explicit NotifyCollector(const Notifications& n) : n_(n) {}

  Status collect(model::SnapshotBuilder& out) override {
    using model::MetricType;
    notify::DeliveryMetrics m = n_.delivery_metrics();
    auto d = [](uint64_t v) { return static_cast<double>(v); };
    const std::vector<std::string> tl{"target"};
    auto per_target = [&](std::string_view name, std::string_view help, MetricType type, auto get) {
      auto f = out.family(name, help, type, tl);
      for (const auto& t : m.targets) f.add({t.target}, get(t));
    };
    using T = notify::TargetMetrics;
    per_target("llmon_notifications_queued_total", "Notifications queued for delivery (recovered ones included).",
               MetricType::kCounter, [&](const T& t) { return d(t.queued_total); });
    per_target("llmon_notifications_delivered_total", "Notifications delivered.", MetricType::kCounter,
               [&](const T& t) { return d(t.delivered_total); });
    per_target("llmon_notifications_retries_total",
               "Delivery attempts that failed transiently (network, timeout, 5xx, 429) and will be retried.",
               MetricType::kCounter, [&](const T& t) { return d(t.retried_total); });
    per_target("llmon_notifications_failed_total", "Notifications that failed permanently (4xx, refused, exit != 0).",
               MetricType::kCounter, [&](const T& t) { return d(t.failed_total); });
    per_target("llmon_notifications_dropped_total", "Notifications dropped unsent (too old, or the queue was full).",
               MetricType::kCounter, [&](const T& t) { return d(t.dropped_total); });
    per_target("llmon_notifications_queue_length", "Notifications waiting for delivery.", MetricType::kGauge,
               [&](const T& t) { return d(t.queue_length); });
    per_target("llmon_notifications_oldest_age_seconds", "Age of the oldest notification waiting.",
               MetricType::kGauge, [&](const T& t) { return static_cast<double>(t.oldest_age_ms) / 1000.0; });
    out.family("llmon_notifications_queue_write_errors_total", "Failed writes to the delivery queue file.",
               MetricType::kCounter)
        .add(d(m.write_errors_total));
    if (auto am = n_.alertmanager_metrics()) {
      out.family("llmon_notifications_alertmanagers_discovered", "Alertmanagers alerts are sent to.",
                 MetricType::kGauge)
          .add(d(am->alertmanagers.size()));
      const std::vector<std::string> al{"alertmanager"};
      {
        auto f = out.family("llmon_notifications_alertmanager_sent_total", "Alerts Alertmanager accepted.",
                            MetricType::kCounter, al);
        for (const auto& e : am->alertmanagers) f.add({e.url}, d(e.sent_total));
      }
      {
        auto f = out.family("llmon_notifications_alertmanager_errors_total",
                            "Alerts in attempts to reach Alertmanager that failed.", MetricType::kCounter, al);
        for (const auto& e : am->alertmanagers) f.add({e.url}, d(e.errors_total));
      }
      out.family("llmon_notifications_alertmanager_dropped_total", "Alerts given up before Alertmanager got them.",
                 MetricType::kCounter)
          .add(d(am->dropped_total));
      out.family("llmon_notifications_alertmanager_queue_length", "Alerts waiting in memory to be batched.",
                 MetricType::kGauge)
          .add(d(am->queue_length));
    }
    if (auto ds = n_.dispatcher_stats()) {
      out.family("llmon_alerts_received_total", "Alerts handed to llmon's own routing.", MetricType::kCounter)
          .add(d(ds->alerts_received));
      out.family("llmon_alerts_invalid_total", "Alerts the routing refused as invalid.", MetricType::kCounter)
          .add(d(ds->alerts_invalid));
      out.family("llmon_alerts_muted_total", "Alerts left out of a notification: silenced or inhibited.",
                 MetricType::kCounter)
          .add(d(ds->alerts_muted));
      out.family("llmon_alerts_dropped_total", "Alerts not routed because a limit was reached.",
                 MetricType::kCounter)
          .add(d(ds->alerts_dropped_store_full + ds->alerts_dropped_group_full + ds->groups_limit_reached));
      out.family("llmon_alert_groups", "Aggregation groups of llmon's own routing.", MetricType::kGauge)
          .add(d(ds->groups));
      out.family("llmon_alert_group_notifications_total", "Notifications the routing produced.",
                 MetricType::kCounter)
          .add(d(ds->notifications));
    }
    return Status::ok();
  }

 private:
  const Notifications& n_;
};

void json_answer(http::Response& res, int status, std::string body) {
  res.status = status;
  res.content_type = "application/json";
  res.body = std::move(body);
  res.body += '\n';
}

}  // namespace

NotifySetupOptions notify_setup_options(const config::Settings& s, std::string external_url,
                                        notify::LabelPairs external_labels) {
  NotifySetupOptions o;
  o.data_dir = s.get(config::flag::kStoragePath);
  o.alertmanager_urls = split_list(s.get(config::flag::kAlertmanagerUrl));
  o.config_path = s.get(config::flag::kNotifyConfig);
  o.exec_allow = split_list(s.get(config::flag::kNotifyExecAllow));
  o.external_url = std::move(external_url);
  o.external_labels = std::move(external_labels);
  return o;
}

Expected<std::vector<std::pair<std::string, std::shared_ptr<notify::Sender>>>> build_senders(
    const notify::NotifyConfig& cfg, const std::vector<std::string>& exec_allow, const base::Clock& clock,
    base::Logger& log) {
  std::vector<std::pair<std::string, std::shared_ptr<notify::Sender>>> out;
  notify::ExecAllowList allow;
  bool allow_built = false;
  for (const auto& r : cfg.receivers) {
    for (size_t i = 0; i < r.email_configs.size(); ++i) {
      std::string name = "email[" + std::to_string(i) + "]";
      std::string where = "receiver \"" + r.name + "\" " + name;
      auto c = email_config(r.email_configs[i], where);
      if (!c) return Status::error(c.error());
      auto s = notify::EmailSender::create(std::move(*c), clock);
      if (!s) return Status::error(where + ": " + s.error());
      out.emplace_back(target_name(r.name, name), std::shared_ptr<notify::Sender>(std::move(*s)));
    }
    for (size_t i = 0; i < r.webhook_configs.size(); ++i) {
      std::string name = "webhook[" + std::to_string(i) + "]";
      std::string where = "receiver \"" + r.name + "\" " + name;
      auto c = webhook_config(r.webhook_configs[i], where);
      if (!c) return Status::error(c.error());
      auto s = notify::WebhookSender::create(std::move(*c));
      if (!s) return Status::error(where + ": " + s.error());
      out.emplace_back(target_name(r.name, name), std::shared_ptr<notify::Sender>(std::move(*s)));
    }
    for (size_t i = 0; i < r.exec_configs.size(); ++i) {
      std::string name = "exec[" + std::to_string(i) + "]";
      std::string where = "receiver \"" + r.name + "\" " + name;
      if (!allow_built) {
        auto a = notify::ExecAllowList::create(exec_allow);
        if (!a) return Status::error("--notify.exec.allow: " + a.error());
        allow = std::move(*a);
        allow_built = true;
      }
      const auto& x = r.exec_configs[i];
      notify::ExecSenderConfig c;
      c.command = x.command;
      c.timeout_ms = x.timeout_ms;
      c.max_concurrent = x.max_concurrent;
      c.send_resolved = x.send_resolved;
      auto s = notify::ExecSender::create(std::move(c), allow, clock, notify::log_audit_sink(log));
      if (!s) return Status::error(where + ": " + s.error());
      out.emplace_back(target_name(r.name, name), std::shared_ptr<notify::Sender>(std::move(*s)));
    }
  }
  return out;
}

Notifications::Notifications(NotifySetupOptions opts, const base::Clock& clock, base::Logger& log)
    : opts_(std::move(opts)), clock_(clock), log_(log) {}

Expected<std::unique_ptr<Notifications>> Notifications::create(NotifySetupOptions opts, const base::Clock& clock,
                                                               base::Logger& log) {
  std::unique_ptr<Notifications> n(new Notifications(std::move(opts), clock, log));
  const auto& o = n->opts_;
  std::optional<notify::NotifyConfig> cfg;
  if (!o.config_path.empty()) {
    auto c = notify::load_notify_config(o.config_path);
    if (!c) return Status::error("--notify.config: " + c.error());
    for (const auto& w : c->warnings) log.warn("notify config", {{"warning", w}});
    cfg = std::move(*c);
  }
  std::vector<std::pair<std::string, std::shared_ptr<notify::Sender>>> senders;
  if (cfg) {
    auto s = build_senders(*cfg, o.exec_allow, clock, log);
    if (!s) return Status::error("--notify.config " + o.config_path + ": " + s.error());
    senders = std::move(*s);
  }
  notify::DeliveryQueueOptions qo;
  qo.dir = o.data_dir + "/notify-queue";
  std::random_device rd;
  auto rng = std::make_shared<std::mt19937_64>(rd());
  auto q = notify::DeliveryQueue::open(
      qo, clock, [rng] { return std::uniform_real_distribution<double>(0.0, 1.0)(*rng); }, &log);
  if (!q) return Status::error("notification queue: " + q.error());
  n->queue_ = std::move(*q);
  const auto& rec = n->queue_->recovery();
  if (rec.jobs_recovered > 0 || !rec.problems.empty())
    log.info("notification queue recovered", {{"jobs", std::to_string(rec.jobs_recovered)},
                                              {"problems", std::to_string(rec.problems.size())}});
  for (const auto& p : rec.problems) log.warn("notification queue", {{"problem", p}});
  for (auto& [name, sender] : senders) {
    if (Status st = n->queue_->add_target(name, notify::sender_target(sender)); !st) return st;
  }
  if (!o.alertmanager_urls.empty()) {
    notify::AlertmanagerOptions ao;
    for (const auto& u : o.alertmanager_urls) ao.alertmanagers.push_back({u, {}});
    ao.external_labels = o.external_labels;
    auto am = notify::AlertmanagerNotifier::create(std::move(ao), *n->queue_, &log);
    if (!am) return Status::error("--alertmanager.url: " + am.error());
    n->alertmanager_ = std::move(*am);
  }
  notify::SilencesOptions so;
  so.dir = o.data_dir + "/silences";
  n->silences_ = std::make_unique<notify::Silences>(clock, so);
  if (Status st = n->silences_->load(); !st) log.warn("silences", {{"err", st.message()}});
  if (cfg) {
    notify::DispatcherOptions dopts;
    dopts.external_url = o.external_url;
    dopts.log_file = qo.dir + "/nflog.json";  // what was notified survives restarts: no duplicates
    Notifications* self = n.get();
    n->dispatcher_ = std::make_unique<notify::Dispatcher>(
        *cfg, clock,
        [self](const notify::Integration& integration, const notify::Notification& notification) {
          auto id = self->queue_->enqueue(target_name(notification.receiver, integration.name), "notification",
                                          notify::encode_notification(notification));
          if (!id) self->log_.error("cannot queue a notification", {{"err", id.error()}});
          return static_cast<bool>(id);
        },
        dopts,
        [self](const notify::LabelPairs& labels, int64_t now_ms) { return self->silences_->mutes(labels, now_ms); });
    if (Status st = n->dispatcher_->load_log(); !st) log.warn("notification log", {{"err", st.message()}});
    n->dispatcher_thread_ = std::thread([d = n->dispatcher_.get()] { d->run(); });
  }
  return n;
}

Notifications::~Notifications() { stop(); }

void Notifications::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (dispatcher_) {
    dispatcher_->stop();
    if (dispatcher_thread_.joinable()) dispatcher_thread_.join();
  }
  // The notifier stays (the metrics collector may still read it); flushing
  // hands its in-memory alerts to the queue, which keeps them on disk.
  if (alertmanager_) alertmanager_->flush();
  if (queue_) queue_->stop();
}

void Notifications::send(std::vector<notify::Alert> alerts) {
  if (dispatcher_) {
    if (Status st = dispatcher_->put(alerts); !st) log_.warn("alerts refused by routing", {{"err", st.message()}});
  }
  if (alertmanager_) alertmanager_->send(std::move(alerts));
}

std::optional<notify::AlertmanagerMetrics> Notifications::alertmanager_metrics() const {
  if (!alertmanager_) return std::nullopt;
  return alertmanager_->metrics();
}

std::optional<notify::DispatcherStats> Notifications::dispatcher_stats() const {
  if (!dispatcher_) return std::nullopt;
  return dispatcher_->stats();
}

std::unique_ptr<collector::Collector> Notifications::make_collector() const {
  return std::make_unique<NotifyCollector>(*this);
}

Status Notifications::register_routes(http::Server& server) {
  Status s = server.add_route("/api/v2/silences", {"GET", "POST"}, [this](const http::Request& req,
                                                                          http::Response& res) {
    if (req.method == "POST") {
      notify::SilenceApiReply r = notify::post_silence_api(*silences_, req.body, clock_.now_ms());
      return json_answer(res, r.status, r.body);
    }
    json_answer(res, 200, notify::render_gettable_silences(silences_->list(), clock_.now_ms()));
  });
  if (!s) return s;
  s = server.add_route("/api/v2/silence/*", {"GET", "DELETE"}, [this](const http::Request& req, http::Response& res) {
    std::string id = req.path.substr(std::string_view("/api/v2/silence/").size());
    if (req.method == "DELETE") {
      notify::SilenceApiReply r = notify::delete_silence_api(*silences_, id);
      return json_answer(res, r.status, r.body);
    }
    auto sil = silences_->get(id);
    if (!sil) return json_answer(res, 404, go::json::quoted("silence not found"));
    json_answer(res, 200, notify::render_gettable_silence(*sil, clock_.now_ms()));
  });
  if (!s) return s;
  return server.add_route("/api/v1/notifications", {"GET"}, [this](const http::Request&, http::Response& res) {
    using nlohmann::json;
    json data;
    data["targets"] = json::array();
    for (const auto& t : delivery_metrics().targets)
      data["targets"].push_back({{"target", t.target},
                                 {"registered", t.registered},
                                 {"queued", t.queued_total},
                                 {"delivered", t.delivered_total},
                                 {"retried", t.retried_total},
                                 {"failed", t.failed_total},
                                 {"dropped", t.dropped_total},
                                 {"queueLength", t.queue_length},
                                 {"oldestAgeSeconds", static_cast<double>(t.oldest_age_ms) / 1000.0}});
    data["recentFailures"] = json::array();
    for (const auto& f : recent_failures())
      data["recentFailures"].push_back({{"target", f.target},
                                        {"kind", f.kind},
                                        {"attempt", f.attempt},
                                        {"time", go::json::go_time(f.time_ms)},
                                        {"error", f.error},
                                        {"permanent", f.permanent}});
    json_answer(res, 200, json{{"status", "success"}, {"data", data}}.dump());
  });
}

}  // namespace llmon::app
