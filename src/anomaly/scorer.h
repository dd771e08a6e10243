// The anomaly scores of a node's curated series: one Baseline per series
// (metric + labels), fed one observation at a time; the node anomaly rate is
// the share of the scored series that are anomalous (score >= 0.5). Pure: the
// caller queries the features (tracker.h) and passes the time in; bounded
// (max_series; series unseen for forget_after_ms are dropped). Not
// thread-safe (one owner).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "anomaly/baseline.h"
#include "model/labels.h"

namespace llmon::anomaly {

struct ScorerOptions {
  BaselineOptions baseline;
  int64_t learn_every_ms = 60'000;      // one feature a minute enters the baseline
  size_t max_series = 1024;             // series beyond are not tracked
  int64_t forget_after_ms = 3'600'000;  // a series unseen this long is dropped
};

// One series' state after its latest observation.
struct SeriesScore {
  std::string metric;
  model::Labels labels;  // the feature's own labels
  bool ready = false;    // baseline ready (cold start: false for min_features minutes)
  double value = 0, score = 0, centre = 0, scale = 0;
  int64_t t_ms = 0;
  // The latest anomalous stretch (score >= 0.5): its start, its last time, its peak.
  int64_t since_ms = -1, last_anomalous_ms = -1;
  double peak_score = 0;
  bool anomalous() const { return ready && score >= kAnomalousScore; }
};

class Scorer {
 public:
  explicit Scorer(ScorerOptions o = {}) : opts_(o) {}
  // x of series (metric, labels) at t_ms: scored against its baseline, then
  // learnt when learn_every_ms passed since the series' last learnt feature.
  void observe(std::string_view metric, const model::Labels& labels, double abs_floor, int64_t t_ms, double x);
  // Drops the series unseen for forget_after_ms before t_ms; returns their states.
  std::vector<SeriesScore> forget(int64_t t_ms);
  // Anomalous / ready among the series observed at their latest time; -1 when none is ready.
  double node_rate() const;
  size_t ready_count() const;
  std::vector<const SeriesScore*> series() const;
  // The series anomalous at some time in [since_ms, now], most anomalous first.
  std::vector<const SeriesScore*> anomalies(int64_t since_ms) const;
  const ScorerOptions& options() const { return opts_; }

 private:
  struct Entry {
    SeriesScore s;
    Baseline baseline;
    int64_t last_learn_ms = -1;
  };
  ScorerOptions opts_;
  std::map<std::string, Entry> series_;
};

}  // namespace llmon::anomaly
