// The continuous diagnosis (--diagnose.interval, 0 = off): a thread that
// diagnoses the agent's own series over --window every interval and writes
// the findings as llmon_diagnosis_finding series (diagnose/finding_series.h);
// with anomaly scoring on, it also observes the curated series' features
// (anomaly/tracker.h: the baseline is rebuilt from the store at the first
// run, kRebuildHistoryMs of it), stores the scores (anomaly/series.h) and has
// the findings cite them.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "anomaly/series.h"
#include "anomaly/tracker.h"
#include "base/clock.h"
#include "base/log.h"
#include "diagnose/finding_series.h"
#include "promql/engine.h"
#include "storage/storage.h"

namespace llmon::app {

class DiagnosisLoop {
 public:
  // options.selector, window and prices as the API's defaults; t_ms is set per run.
  DiagnosisLoop(promql::Engine& engine, storage::Storage& store, const base::Clock& clock, base::Logger& log,
                diagnose::Options options, std::vector<model::Label> target, int64_t interval_ms, bool anomaly = true);
  // The history replayed into the baselines at the first run: two days and an
  // hour, so the hour-of-day seasonality has its two earlier days at once.
  static constexpr int64_t kRebuildHistoryMs = 49 * 3'600'000LL;
  ~DiagnosisLoop();
  void start();
  void stop();
  // One diagnosis at t_ms, written to the store (the thread's body; tests call it).
  void run_once(int64_t t_ms);

 private:
  promql::Engine& engine_;
  storage::Storage& store_;
  const base::Clock& clock_;
  base::Logger& log_;
  diagnose::Options options_;
  diagnose::FindingSeries series_;
  std::unique_ptr<anomaly::Tracker> tracker_;  // null: anomaly scoring off
  anomaly::AnomalySeries anomaly_series_;
  bool rebuilt_ = false;
  int64_t interval_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
  std::string last_error_;
};

}  // namespace llmon::app
