// The anomaly scores as series in the agent's store, so rules and
// dashboards use them (docs/diagnosis.md "Baselines and anomalies"):
//   llmon_anomaly_score{<the series' labels>, metric} 0..1, only once its baseline is ready
//   llmon_anomaly_baseline_ready{<the series' labels>, metric} 0 or 1
//   llmon_anomaly_node_rate{job, instance} anomalous share of the ready series, once one is
// with staleness markers for series that are gone. Not thread-safe (one owner).
#pragma once

#include <vector>

#include "anomaly/scorer.h"
#include "base/status.h"
#include "storage/storage.h"

namespace llmon::anomaly {

inline constexpr const char* kScoreMetric = "llmon_anomaly_score";
inline constexpr const char* kReadyMetric = "llmon_anomaly_baseline_ready";
inline constexpr const char* kNodeRateMetric = "llmon_anomaly_node_rate";

class AnomalySeries {
 public:
  // target: labels every series carries unless it has them (the agent's job and instance).
  explicit AnomalySeries(std::vector<model::Label> target) : target_(std::move(target)) {}
  // One sample per series the scorer observed at t_ms; commits.
  Status write(const Scorer& scorer, storage::Appender& app, int64_t t_ms);
  const std::vector<model::Labels>& active() const { return active_; }

 private:
  std::vector<model::Label> target_;
  std::vector<model::Labels> active_;
};

}  // namespace llmon::anomaly
