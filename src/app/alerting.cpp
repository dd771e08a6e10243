#include "app/alerting.h"

#include "api/rules_api.h"
#include "app/storage_setup.h"

namespace llmon::app {

namespace {

std::string join_errors(const std::vector<std::string>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += '\n';
    out += e;
  }
  return out;
}

class RulesCollector final : public collector::Collector {
 public:
  explicit RulesCollector(const Alerting& a) : a_(a) {}

  Status collect(model::SnapshotBuilder& out) override {
    using model::MetricType;
    ReloadStats rs = a_.reload_stats();
    out.family("llmon_rules_config_last_reload_successful",
               "1 if the last rule reload succeeded (a failed one keeps the previous rules running).",
               MetricType::kGauge)
        .add(rs.last_successful ? 1 : 0);
    out.family("llmon_rules_config_last_reload_success_timestamp_seconds", "When the rules last loaded successfully.",
               MetricType::kGauge)
        .add(static_cast<double>(rs.last_success_ms) / 1000.0);
    auto counters = a_.manager().counters();
    if (counters.empty()) return Status::ok();
    const std::vector<std::string> labels{"rule_group"};
    auto emit = [&](std::string_view name, std::string_view help, MetricType type, auto get) {
      auto f = out.family(name, help, type, labels);
      for (const auto& [key, c] : counters) f.add({key}, get(c));
    };
    using C = rules::GroupCounters;
    auto d = [](uint64_t v) { return static_cast<double>(v); };
    emit("llmon_rule_evaluations_total", "Rule evaluations (Prometheus: prometheus_rule_evaluations_total).",
         MetricType::kCounter, [&](const C& c) { return d(c.evaluations_total); });
    emit("llmon_rule_evaluation_failures_total", "Rule evaluations that failed (query error, template, limit).",
         MetricType::kCounter, [&](const C& c) { return d(c.evaluation_failures_total); });
    emit("llmon_rule_group_iterations_total", "Scheduled evaluations of the group.", MetricType::kCounter,
         [&](const C& c) { return d(c.iterations_total); });
    emit("llmon_rule_group_iterations_missed_total",
         "Evaluations skipped because the previous one took longer than the interval.", MetricType::kCounter,
         [&](const C& c) { return d(c.iterations_missed_total); });
    emit("llmon_rule_group_evaluation_seconds_total", "Total time spent evaluating the group.", MetricType::kCounter,
         [&](const C& c) { return c.duration_s_sum; });
    emit("llmon_rule_group_last_duration_seconds", "How long the group's last evaluation took.", MetricType::kGauge,
         [&](const C& c) { return c.last_duration_s; });
    emit("llmon_rule_group_last_evaluation_samples", "Samples the group's last evaluation produced.",
         MetricType::kGauge, [&](const C& c) { return d(c.last_samples); });
    emit("llmon_rule_group_rules", "Rules in the group.", MetricType::kGauge,
         [&](const C& c) { return d(c.rules); });
    emit("llmon_rule_group_last_evaluation_timestamp_seconds", "When the group was last evaluated.",
         MetricType::kGauge, [&](const C& c) {
           return c.last_evaluation_ms ? static_cast<double>(*c.last_evaluation_ms) / 1000.0 : 0.0;
         });
    return Status::ok();
  }

 private:
  const Alerting& a_;
};

}  // namespace

Expected<std::map<std::string, std::string>> parse_label_list(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto& item : split_list(text)) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::error("--rules.external-labels: \"" + item + "\" is not name=value");
    std::string name = item.substr(0, eq);
    if (!rules::is_valid_label_name(name))
      return Status::error("--rules.external-labels: invalid label name \"" + name + "\"");
    out[name] = item.substr(eq + 1);
  }
  return out;
}

Expected<AlertingOptions> alerting_options(const config::Settings& s, int port) {
  AlertingOptions o;
  o.sources.defaults = s.get(config::flag::kRulesDefaults);
  o.sources.files = split_list(s.get(config::flag::kRulesFile));
  auto& g = o.manager.group;
  g.default_interval_ms = s.get(config::flag::kRulesEvaluationInterval);
  if (g.default_interval_ms <= 0) return Status::error("--rules.evaluation-interval must be positive");
  g.default_query_offset_ms = s.get(config::flag::kRulesQueryOffset);
  g.resend_delay_ms = s.get(config::flag::kRulesAlertResendDelay);
  g.outage_tolerance_ms = s.get(config::flag::kRulesAlertForOutageTolerance);
  g.for_grace_period_ms = s.get(config::flag::kRulesAlertForGracePeriod);
  auto labels = parse_label_list(s.get(config::flag::kRulesExternalLabels));
  if (!labels) return Status::error(labels.error());
  g.external_labels = std::move(*labels);
  std::string url = s.get(config::flag::kWebExternalUrl);
  if (url.empty()) {
    url = "http://" + system_hostname() + ":" + std::to_string(port);
  } else {
    while (!url.empty() && url.back() == '/') url.pop_back();
    g.template_external_url = url;
  }
  g.external_url = url;
  if (!g.template_external_url) g.template_external_url = url;
  return o;
}

Alerting::Alerting(AlertingOptions options, base::Logger& log)
    : options_(std::move(options)), log_(log), manager_(options_.manager) {}

Alerting::~Alerting() { stop(); }

Status Alerting::reload() {
  std::lock_guard<std::mutex> lock(reload_mu_);
  rules::RuleFilesResult r = load_rule_sources(options_.sources);
  Status st = Status::ok();
  size_t rules_n = 0;
  if (!r.ok()) {
    st = Status::error("rule files not loaded, the previous rules keep running:\n" + join_errors(r.errors));
  } else {
    for (const auto& g : r.groups) rules_n += g.rules.size();
    size_t groups_n = r.groups.size();
    st = manager_.update(std::move(r.groups));
    if (st) log_.info("rules loaded", {{"groups", std::to_string(groups_n)}, {"rules", std::to_string(rules_n)}});
  }
  std::lock_guard<std::mutex> sl(stats_mu_);
  ++stats_.reloads_total;
  stats_.last_successful = static_cast<bool>(st);
  if (st) {
    stats_.last_success_ms = options_.manager.group.clock ? options_.manager.group.clock->now_ms() : 0;
    stats_.last_error.clear();
  } else {
    ++stats_.failures_total;
    stats_.last_error = st.message();
    log_.error("loading rules failed", {{"err", st.message()}});
  }
  return st;
}

void Alerting::start() { manager_.start(); }
void Alerting::stop() { manager_.stop(); }

ReloadStats Alerting::reload_stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

Status Alerting::register_routes(http::Server& server) {
  if (Status s = api::register_rules_api(server,
                                         [this] {
                                           auto groups = snapshot();
                                           if (decorator_) decorator_(groups);
                                           return groups;
                                         });
      !s)
    return s;
  // Prometheus serves /-/reload only with --web.enable-lifecycle because the
  // same switch enables /-/quit; ours only re-reads the configured files.
  return server.add_route("/-/reload", {"POST", "PUT"}, [this](const http::Request&, http::Response& res) {
    Status st = reload();
    res.status = st ? 200 : 500;
    res.body = st ? "" : st.message() + "\n";
  });
}

std::unique_ptr<collector::Collector> Alerting::make_collector() const {
  return std::make_unique<RulesCollector>(*this);
}

}  // namespace llmon::app
