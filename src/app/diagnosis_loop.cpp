#include "app/diagnosis_loop.h"

namespace llmon::app {

DiagnosisLoop::DiagnosisLoop(promql::Engine& engine, storage::Storage& store, const base::Clock& clock,
                             base::Logger& log, diagnose::Options options, std::vector<model::Label> target,
                             int64_t interval_ms)
    : engine_(engine),
      store_(store),
      clock_(clock),
      log_(log),
      options_(std::move(options)),
      series_(std::move(target)),
      interval_ms_(interval_ms) {}

DiagnosisLoop::~DiagnosisLoop() {
  stop();
}

void DiagnosisLoop::run_once(int64_t t_ms) {
  diagnose::Options o = options_;
  o.t_ms = t_ms;
  diagnose::EngineSource source(engine_);
  diagnose::Diagnosis d = diagnose::run(source, o);
  auto app = store_.appender();
  Status s = series_.write(d, *app, t_ms);
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
