// The notification pipeline (pipeline.h).
#include "notify/pipeline.h"

#include <fstream>
#include <random>
#include <sstream>

#include "notify/delivery/notification_codec.h"
#include "notify/email/email.h"
#include "notify/email/email_mime.h"
#include "notify/senders/exec_action.h"
#include "notify/senders/webhook.h"

namespace llmon::notify {

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

Expected<EmailSenderConfig> email_config(const EmailNotifierConfig& c, const std::string& where) {
  EmailSenderConfig e;
  auto to = parse_address_list(c.to);
  if (!to) return Status::error(where + ": to: " + to.error());
  for (const auto& a : *to) e.to.push_back(format_mail_address(a));
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
  if (!c.auth_secret.empty())
    return Status::error(where + ": auth_secret (CRAM-MD5) is not supported; use auth_password");
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

Expected<WebhookConfig> webhook_config(const WebhookNotifierConfig& c, const std::string& where) {
  WebhookConfig w;
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

}  // namespace

Expected<std::vector<std::pair<std::string, std::shared_ptr<Sender>>>> build_senders(
    const NotifyConfig& cfg, const std::vector<std::string>& exec_allow, const base::Clock& clock, base::Logger& log,
    const TraceCaptureHook& trace_capture) {
  std::vector<std::pair<std::string, std::shared_ptr<Sender>>> out;
  ExecAllowList allow;
  bool allow_built = false;
  for (const auto& r : cfg.receivers) {
    for (size_t i = 0; i < r.email_configs.size(); ++i) {
      std::string name = "email[" + std::to_string(i) + "]";
      std::string where = "receiver \"" + r.name + "\" " + name;
      auto c = email_config(r.email_configs[i], where);
      if (!c) return Status::error(c.error());
      auto s = EmailSender::create(std::move(*c), clock);
      if (!s) return Status::error(where + ": " + s.error());
      out.emplace_back(target_name(r.name, name), std::shared_ptr<Sender>(std::move(*s)));
    }
    for (size_t i = 0; i < r.webhook_configs.size(); ++i) {
      std::string name = "webhook[" + std::to_string(i) + "]";
      std::string where = "receiver \"" + r.name + "\" " + name;
      auto c = webhook_config(r.webhook_configs[i], where);
      if (!c) return Status::error(c.error());
      auto s = WebhookSender::create(std::move(*c));
      if (!s) return Status::error(where + ": " + s.error());
      out.emplace_back(target_name(r.name, name), std::shared_ptr<Sender>(std::move(*s)));
    }
    for (size_t i = 0; i < r.exec_configs.size(); ++i) {
      std::string name = "exec[" + std::to_string(i) + "]";
      std::string where = "receiver \"" + r.name + "\" " + name;
      if (!allow_built) {
        auto a = ExecAllowList::create(exec_allow);
        if (!a) return Status::error("--notify.exec.allow: " + a.error());
        allow = std::move(*a);
        allow_built = true;
      }
      const auto& x = r.exec_configs[i];
      ExecSenderConfig c;
      c.command = x.command;
      c.timeout_ms = x.timeout_ms;
      c.max_concurrent = x.max_concurrent;
      c.send_resolved = x.send_resolved;
      auto s = ExecSender::create(std::move(c), allow, clock, log_audit_sink(log));
      if (!s) return Status::error(where + ": " + s.error());
      out.emplace_back(target_name(r.name, name), std::shared_ptr<Sender>(std::move(*s)));
    }
    for (size_t i = 0; i < r.trace_capture_configs.size(); ++i) {
      std::string name = "trace_capture[" + std::to_string(i) + "]";
      if (!trace_capture)
        return Status::error("receiver \"" + r.name + "\" " + name +
                             ": trace capture is off; start the agent with --trace.capture-dir");
      out.emplace_back(target_name(r.name, name),
                       std::make_shared<TraceCaptureSender>(r.trace_capture_configs[i], trace_capture));
    }
  }
  return out;
}

Pipeline::Pipeline(PipelineOptions opts, const base::Clock& clock, base::Logger& log)
    : opts_(std::move(opts)), clock_(clock), log_(log) {}

Expected<std::unique_ptr<Pipeline>> Pipeline::create(PipelineOptions opts, const base::Clock& clock,
                                                     base::Logger& log) {
  std::unique_ptr<Pipeline> n(new Pipeline(std::move(opts), clock, log));
  const auto& o = n->opts_;
  std::optional<NotifyConfig> cfg;
  if (!o.config_path.empty()) {
    auto c = load_notify_config(o.config_path);
    if (!c) return Status::error("--notify.config: " + c.error());
    for (const auto& w : c->warnings) log.warn("notify config", {{"warning", w}});
    cfg = std::move(*c);
  }
  std::vector<std::pair<std::string, std::shared_ptr<Sender>>> senders;
  if (cfg) {
    auto s = build_senders(*cfg, o.exec_allow, clock, log, o.trace_capture);
    if (!s) return Status::error("--notify.config " + o.config_path + ": " + s.error());
    senders = std::move(*s);
  }
  DeliveryQueueOptions qo;
  qo.dir = o.data_dir + "/notify-queue";
  std::random_device rd;
  auto rng = std::make_shared<std::mt19937_64>(rd());
  auto q = DeliveryQueue::open(
      qo, clock, [rng] { return std::uniform_real_distribution<double>(0.0, 1.0)(*rng); }, &log);
  if (!q) return Status::error("notification queue: " + q.error());
  n->queue_ = std::move(*q);
  const auto& rec = n->queue_->recovery();
  if (rec.jobs_recovered > 0 || !rec.problems.empty())
    log.info("notification queue recovered",
             {{"jobs", std::to_string(rec.jobs_recovered)}, {"problems", std::to_string(rec.problems.size())}});
  for (const auto& p : rec.problems) log.warn("notification queue", {{"problem", p}});
  for (auto& [name, sender] : senders) {
    if (Status st = n->queue_->add_target(name, sender_target(sender)); !st) return st;
  }
  if (!o.alertmanager_urls.empty()) {
    AlertmanagerOptions ao;
    for (const auto& u : o.alertmanager_urls) ao.alertmanagers.push_back({u, {}});
    ao.external_labels = o.external_labels;
    auto am = AlertmanagerNotifier::create(std::move(ao), *n->queue_, &log);
    if (!am) return Status::error("--alertmanager.url: " + am.error());
    n->alertmanager_ = std::move(*am);
  }
  SilencesOptions so;
  so.dir = o.data_dir + "/silences";
  n->silences_ = std::make_unique<Silences>(clock, so);
  if (Status st = n->silences_->load(); !st) log.warn("silences", {{"err", st.message()}});
  if (cfg) {
    DispatcherOptions dopts;
    dopts.external_url = o.external_url;
    dopts.log_file = qo.dir + "/nflog.json";  // what was notified survives restarts: no duplicates
    Pipeline* self = n.get();
    n->dispatcher_ = std::make_unique<Dispatcher>(
        *cfg, clock,
        [self](const Integration& integration, const Notification& notification) {
          auto id = self->queue_->enqueue(target_name(notification.receiver, integration.name), "notification",
                                          encode_notification(notification));
          if (!id) self->log_.error("cannot queue a notification", {{"err", id.error()}});
          return static_cast<bool>(id);
        },
        dopts, [self](const LabelPairs& labels, int64_t now_ms) { return self->silences_->mutes(labels, now_ms); });
    if (Status st = n->dispatcher_->load_log(); !st) log.warn("notification log", {{"err", st.message()}});
    n->dispatcher_thread_ = std::thread([d = n->dispatcher_.get()] { d->run(); });
  }
  return n;
}

Pipeline::~Pipeline() {
  stop();
}

void Pipeline::stop() {
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

void Pipeline::send(std::vector<Alert> alerts) {
  if (dispatcher_) {
    if (Status st = dispatcher_->put(alerts); !st) log_.warn("alerts refused by routing", {{"err", st.message()}});
  }
  if (alertmanager_) alertmanager_->send(std::move(alerts));
}

std::optional<AlertmanagerMetrics> Pipeline::alertmanager_metrics() const {
  if (!alertmanager_) return std::nullopt;
  return alertmanager_->metrics();
}

std::optional<DispatcherStats> Pipeline::dispatcher_stats() const {
  if (!dispatcher_) return std::nullopt;
  return dispatcher_->stats();
}

}  // namespace llmon::notify
