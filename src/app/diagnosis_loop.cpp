#include "app/diagnosis_loop.h"

#include "diagnose/anomaly_cite.h"

namespace llmon::app {

DiagnosisLoop::DiagnosisLoop(promql::Engine& engine, storage::Storage& store, const base::Clock& clock,
                             base::Logger& log, diagnose::Options options, std::vector<model::Label> target,
                             int64_t interval_ms, bool anomaly)
    : engine_(engine),
      store_(store),
      clock_(clock),
      log_(log),
      options_(std::move(options)),
      series_(target),
      anomaly_series_(std::move(target)),
      interval_ms_(interval_ms) {
  if (anomaly) tracker_ = std::make_unique<anomaly::Tracker>(engine_, options_.selector);
}

DiagnosisLoop::~DiagnosisLoop() {
  stop();
}

void DiagnosisLoop::run_once(int64_t t_ms) {
  diagnose::Options o = options_;
  o.t_ms = t_ms;
  diagnose::EngineSource source(engine_);
  diagnose::Diagnosis d = diagnose::run(source, o);
  if (tracker_) {
    if (!rebuilt_) {
      tracker_->rebuild(t_ms - kRebuildHistoryMs, t_ms - interval_ms_);
      rebuilt_ = true;
    }
    tracker_->update(t_ms);
    tracker_->scorer().forget(t_ms);
    diagnose::cite_anomalies(d, tracker_->scorer());
  }
  auto app = store_.appender();
  Status s = series_.write(d, *app, t_ms);
  if (s && tracker_) {
    auto app2 = store_.appender();
    s = anomaly_series_.write(tracker_->scorer(), *app2, t_ms);
  }
  std::string err = s ? std::string() : s.message();
  if (err != last_error_) {
    if (!err.empty()) log_.error("cannot store the diagnosis findings", {{"err", err}});
    last_error_ = err;
  }
}

void DiagnosisLoop::start() {
  if (interval_ms_ <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      int64_t now = clock_.now_ms();
      int64_t next = (now / interval_ms_ + 1) * interval_ms_;
      if (cv_.wait_for(lock, std::chrono::milliseconds(next - now), [this] { return stop_; })) break;
      lock.unlock();
      run_once(next);
      lock.lock();
    }
  });
}

void DiagnosisLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace llmon::app
