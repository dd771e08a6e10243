// The continuous diagnosis (--diagnose.interval, 0 = off): a thread that
// diagnoses the agent's own series over --window every interval and writes
// the findings as llmon_diagnosis_finding series (diagnose/finding_series.h).
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

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
                diagnose::Options options, std::vector<model::Label> target, int64_t interval_ms);
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
  int64_t interval_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
  std::string last_error_;
};

}  // namespace llmon::app
