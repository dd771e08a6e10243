#include "app/push_setup.h"

#include <string>
#include <utility>

#include "config/flag_names.h"

namespace llmon::app {
namespace {

class PushCollector final : public collector::Collector {
 public:
  explicit PushCollector(const scrape::PushIngest& p) : p_(p) {}

  Status collect(model::SnapshotBuilder& out) override {
    const scrape::PushIngestStats st = p_.stats();
    out.family("llmon_push_groups", "Push groups (grouping keys) held for --web.enable-push.",
               model::MetricType::kGauge, {})
        .add({}, static_cast<double>(st.groups));
    auto req = out.family("llmon_push_requests_total", "Push-API requests by HTTP status.", model::MetricType::kCounter,
                          {"code"});
    for (const auto& [code, n] : st.requests_by_code) req.add({std::to_string(code)}, static_cast<double>(n));
    out.family("llmon_push_samples", "Samples stored from the pushed groups at the last append.",
               model::MetricType::kGauge, {})
        .add({}, static_cast<double>(st.samples_appended));
    out.family("llmon_push_rejected_samples_total",
               "Pushed samples the store refused (out of order, duplicate timestamp).", model::MetricType::kCounter, {})
        .add({}, static_cast<double>(st.rejected));
    out.family("llmon_push_persist_errors_total", "Failed saves of the push groups file.", model::MetricType::kCounter,
               {})
        .add({}, static_cast<double>(st.persist_errors));
    return Status::ok();
  }

 private:
  const scrape::PushIngest& p_;
};

}  // namespace

std::unique_ptr<scrape::PushIngest> make_push_ingest(const config::Settings& s, storage::Storage& storage,
                                                     const base::Clock& clock, base::Logger& log) {
  if (!s.get(config::flag::kWebEnablePush)) return nullptr;
  scrape::PushIngestOptions o;
  o.interval_ms = s.get(config::flag::kCollectInterval);
  const std::string& dir = s.get(config::flag::kStoragePath);
  if (!dir.empty()) o.persistence_file = dir + "/push-groups.json";
  return std::make_unique<scrape::PushIngest>(storage, clock, log, std::move(o));
}

std::unique_ptr<collector::Collector> make_push_collector(const scrape::PushIngest& push) {
  return std::make_unique<PushCollector>(push);
}

}  // namespace llmon::app
