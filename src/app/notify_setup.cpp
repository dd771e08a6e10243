// The notification pipeline's wiring in the agent (notify_setup.h).
#include "app/notify_setup.h"

#include "app/rule_loading.h"

namespace llmon::app {

namespace {

class NotifyCollector final : public collector::Collector {
 public:
  explicit NotifyCollector(const notify::Pipeline& n) : n_(n) {}

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
  const notify::Pipeline& n_;
};

}  // namespace

notify::PipelineOptions notify_setup_options(const config::Settings& s, std::string external_url,
                                             notify::LabelPairs external_labels) {
  notify::PipelineOptions o;
  o.data_dir = s.get(config::flag::kStoragePath);
  o.alertmanager_urls = split_list(s.get(config::flag::kAlertmanagerUrl));
  o.config_path = s.get(config::flag::kNotifyConfig);
  o.exec_allow = split_list(s.get(config::flag::kNotifyExecAllow));
  o.external_url = std::move(external_url);
  o.external_labels = std::move(external_labels);
  return o;
}

std::unique_ptr<collector::Collector> make_notify_collector(const notify::Pipeline& pipeline) {
  return std::make_unique<NotifyCollector>(pipeline);
}

}  // namespace llmon::app
