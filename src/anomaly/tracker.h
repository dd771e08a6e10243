// Feeds the Scorer from the store through PromQL: rebuild() replays the
// curated features of a stretch of history a minute at a time (the agent's
// start and `llmon diagnose`: the baseline is rebuilt from the store, never
// persisted), update() observes one instant of them (the continuous mode,
// every --diagnose.interval). The queries are parsed once. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "anomaly/curated.h"
#include "anomaly/scorer.h"
#include "promql/engine.h"

namespace llmon::anomaly {

class Tracker {
 public:
  // selector: the diagnosis' matchers (job="llmon",...), put in every feature.
  Tracker(promql::Engine& engine, std::string_view selector, ScorerOptions o = {});
  // Observes the features at start, start+1m, ..., <= end_ms (one range query each).
  void rebuild(int64_t start_ms, int64_t end_ms);
  // Observes the features at t_ms (one instant query each).
  void update(int64_t t_ms);
  Scorer& scorer() { return scorer_; }
  const Scorer& scorer() const { return scorer_; }
  // Errors of the last call, one per failed query (missing families are not errors).
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  struct Query {
    const Metric* metric;
    std::string text;
    promql::ExprPtr expr;
  };
  promql::Engine& engine_;
  Scorer scorer_;
  std::vector<Query> queries_;
  std::vector<std::string> errors_;
};

}  // namespace llmon::anomaly
