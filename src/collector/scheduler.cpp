#include "collector/scheduler.h"

#include <chrono>
#include <thread>

#include "collector/duplicate_series.h"

namespace llmon::collector {

Scheduler::Scheduler(std::vector<NamedCollector> collectors, const base::Clock& clock, base::Logger& log,
                     int64_t interval_ms)
    : collectors_(std::move(collectors)),
      clock_(clock),
      log_(log),
      interval_ms_(interval_ms > 0 ? interval_ms : 1000),
      last_error_(collectors_.size()),
      no_data_(collectors_.size(), 0) {}

Scheduler::~Scheduler() { stop(); }

int64_t Scheduler::next_tick(int64_t now_ms, int64_t interval_ms) {
  return (now_ms / interval_ms + 1) * interval_ms;
}

model::SnapshotPtr Scheduler::run_cycle(int64_t timestamp_ms) {
  std::shared_ptr<model::Snapshot> target;
  for (const auto& p : pool_) {
    if (p.use_count() == 1) {  // only the pool: nobody can read it any more
      target = p;
      break;
    }
  }
  if (!target) {
    target = std::make_shared<model::Snapshot>();
    ++buffers_allocated_;
    if (pool_.size() < kPoolSize) pool_.push_back(target);
  }

  model::SnapshotBuilder b(*target, timestamp_ms);
  struct Result {
    double seconds;
    bool ok;
  };
  std::vector<Result> results;
  results.reserve(collectors_.size());
  std::vector<model::CollectorSpan>& spans = target->collectors;
  spans.resize(collectors_.size());
  const double cycle_start = base::monotonic_seconds();
  for (size_t i = 0; i < collectors_.size(); ++i) {
    spans[i].name = collectors_[i].name;  // same text every cycle: assigned in place
    spans[i].first_family = static_cast<uint32_t>(b.families_used());
    double t0 = base::monotonic_seconds();
    Status s = collectors_[i].collector->collect(b);
    double dt = base::monotonic_seconds() - t0;
    spans[i].end_family = static_cast<uint32_t>(b.families_used());
    results.push_back({dt, s.is_ok()});
    {
      std::lock_guard<std::mutex> lock(mu_);
      no_data_[i] = s.is_no_data() ? 1 : 0;
    }
    if (!s.is_ok()) {
      if (last_error_[i] != s.message()) {
        // Absent hardware is no news: node_exporter logs ErrNoData at debug too.
        if (s.is_no_data())
          log_.debug("collector returned no data", {{"name", collectors_[i].name}, {"err", s.message()}});
        else
          log_.error("collector failed", {{"name", collectors_[i].name}, {"err", s.message()}});
        last_error_[i] = s.message();
      }
    } else if (!last_error_[i].empty()) {
      log_.info("collector recovered", {{"name", collectors_[i].name}});
      last_error_[i].clear();
    }
  }
  auto dur = b.family("node_scrape_collector_duration_seconds", "node_exporter: Duration of a collector scrape.",
                      model::MetricType::kGauge, {"collector"});
  for (size_t i = 0; i < collectors_.size(); ++i) dur.add({collectors_[i].name}, results[i].seconds);
  auto ok = b.family("node_scrape_collector_success", "node_exporter: Whether a collector succeeded.",
                     model::MetricType::kGauge, {"collector"});
  for (size_t i = 0; i < collectors_.size(); ++i) ok.add({collectors_[i].name}, results[i].ok ? 1 : 0);
  b.finish();
  drop_duplicate_series(*target, "textfile", duplicates_);
  if (duplicates_ != last_duplicates_) {
    if (!duplicates_.empty()) {
      std::string names;
      for (const auto& n : duplicates_) names += (names.empty() ? "" : ",") + n;
      log_.warn(
          "series dropped: another collector exposes the same family with the same labels or another type "
          "(built-in collectors win over *.prom files)",
          {{"families", names}});
    }
    last_duplicates_ = duplicates_;
  }
  target->duration_seconds = base::monotonic_seconds() - cycle_start;

  model::SnapshotPtr published = target;
  {
    std::lock_guard<std::mutex> lock(mu_);
    latest_ = published;
  }
  ++cycles_;
  for (SampleSink* s : sinks_) s->append(published);
  return published;
}

void Scheduler::run() {
  for (;;) {
    int64_t now = clock_.now_ms();
    int64_t tick = next_tick(now, interval_ms_);
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto deadline = std::chrono::system_clock::time_point(std::chrono::milliseconds(tick));
      if (cv_.wait_until(lock, deadline, [&] { return stop_; })) return;
    }
    // Sleeps can end a little early; never stamp a cycle before its tick.
    while (clock_.now_ms() < tick) std::this_thread::sleep_for(std::chrono::microseconds(200));
    run_cycle(tick);
  }
}

void Scheduler::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  cv_.notify_all();
}

std::vector<std::string> Scheduler::no_data_collectors() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (size_t i = 0; i < collectors_.size(); ++i)
    if (no_data_[i]) out.push_back(collectors_[i].name);
  return out;
}

model::SnapshotPtr Scheduler::latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

}  // namespace llmon::collector
