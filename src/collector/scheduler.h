// Scheduler: runs the enabled collectors once per cycle, sequentially, with
// one timestamp for the whole cycle aligned to the interval, and publishes the
// result as an immutable snapshot to its sinks. It also writes the
// node_scrape_collector_{duration_seconds,success} families. Series two
// collectors both expose are dropped but once (duplicate_series.h), with a
// warning when the set of such families changes.
// run_cycle() is for one thread; latest() may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "collector/collector.h"
#include "model/metric.h"

namespace llmon::collector {

// Receives each published snapshot on the collection thread, after it is
// published (ingest::SnapshotSink writes it into the store).
class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void append(const model::SnapshotPtr& snapshot) = 0;
};

struct NamedCollector {
  std::string name;
  std::unique_ptr<Collector> collector;
};

class Scheduler {
 public:
  Scheduler(std::vector<NamedCollector> collectors, const base::Clock& clock, base::Logger& log,
            int64_t interval_ms);
  ~Scheduler();

  void add_sink(SampleSink* sink) { sinks_.push_back(sink); }

  // Runs one cycle stamped timestamp_ms and publishes it.
  model::SnapshotPtr run_cycle(int64_t timestamp_ms);
  // Loops until stop(): waits for the next multiple of the interval, runs a cycle.
  void run();
  void stop();

  model::SnapshotPtr latest() const;
  // Collectors whose last cycle returned Status::no_data (absent hardware:
  // success 0 as node_exporter, but not a failure), in registration order.
  std::vector<std::string> no_data_collectors() const;
  // Snapshot buffers allocated so far (steady state: at most kPoolSize).
  uint64_t buffers_allocated() const { return buffers_allocated_; }
  // Next aligned tick strictly after now_ms.
  static int64_t next_tick(int64_t now_ms, int64_t interval_ms);

 private:
  std::vector<NamedCollector> collectors_;
  const base::Clock& clock_;
  base::Logger& log_;
  int64_t interval_ms_;
  std::vector<SampleSink*> sinks_;
  // Snapshot buffers recycled between cycles (see SnapshotBuilder). A buffer
  // is reused only when the pool holds its last reference: not the published
  // one, not one a reader (the /metrics page cache, a sink) still holds.
  static constexpr size_t kPoolSize = 3;
  std::vector<std::shared_ptr<model::Snapshot>> pool_;
  uint64_t buffers_allocated_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  model::SnapshotPtr latest_;
  std::vector<std::string> last_error_;  // per collector, to log changes only
  std::vector<char> no_data_;            // per collector, last cycle (under mu_)
  std::vector<std::string> duplicates_, last_duplicates_;  // families that lost series this / last cycle
  uint64_t cycles_ = 0;
};

}  // namespace llmon::collector
