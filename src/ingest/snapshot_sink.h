// SnapshotSink: feeds collection cycles (model::Snapshot) into a
// storage::Storage, one Appender commit per cycle. Implements the scheduler's
// collector::SampleSink; the agent hands it every published cycle when the
// store is on (--storage.enabled).
//
// Series identity is {__name__=<family name>, <label names>=<values>}. The
// Labels and SeriesRef of each series are cached by (family, series) position
// and verified against the name and values by string comparison, so a
// steady-state cycle (same families and series in the same order) builds no
// Labels and allocates nothing but the appender's buffers. A series present
// in the previous cycle and absent now gets a staleness marker
// (model::stale_nan()) at the new cycle's timestamp, then is forgotten.
// With SnapshotSinkOptions::target_labels (the agent sets job and instance),
// every stored series carries them as if Prometheus had scraped the agent
// with honor_labels: false (a colliding exposed label is kept as
// exported_<name>), and each cycle also stores Prometheus's report series
// (up, scrape_duration_seconds, scrape_samples_scraped,
// scrape_samples_post_metric_relabeling, scrape_series_added) with only the
// target labels. Without target labels series are stored as exposed.
// One thread (the collection cycle); stats() may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/scheduler.h"
#include "model/metric.h"
#include "storage/storage.h"

namespace llmon::ingest {

struct SnapshotSinkStats {
  uint64_t cycles = 0;
  uint64_t samples = 0;         // appends accepted (incl. staleness markers)
  uint64_t rejected = 0;        // appends refused by the storage (out of order, duplicate...)
  uint64_t stale_markers = 0;   // staleness markers appended
  uint64_t invalid_series = 0;  // series whose labels are invalid (skipped)
  uint64_t commit_errors = 0;
  uint64_t labels_built = 0;  // Labels constructed (0 per steady-state cycle)
};

struct SnapshotSinkOptions {
  // Labels added to every series, e.g. {{"job", "llmon"}, {"instance", "host:8747"}}; an empty value
  // adds nothing (as in Prometheus). Empty: no target labels and no report series.
  std::vector<model::Label> target_labels;
};

class SnapshotSink final : public collector::SampleSink {
 public:
  explicit SnapshotSink(storage::Storage& storage, SnapshotSinkOptions opts = {});

  void append(const model::SnapshotPtr& snapshot) override;
  // Same, on a snapshot owned elsewhere; returns the commit status.
  Status append_snapshot(const model::Snapshot& snapshot);

  SnapshotSinkStats stats() const;
  size_t cached_series() const { return entries_.size(); }

 private:
  struct Entry {
    std::string key;  // name \xff (label name \xfe value \xff)*
    model::Labels labels;
    storage::SeriesRef ref = 0;
    uint64_t last_seen = 0;  // cycle number
    bool valid = true;
  };
  Entry* lookup(const model::Family& f, const model::Series& s, Entry* cached, bool& created);
  struct Counts {
    uint64_t scraped = 0, added = 0, series_added = 0;
  };
  // Appends the cycle's report series; returns the samples accepted.
  uint64_t append_report(storage::Appender& app, int64_t t, double duration_seconds, const Counts& c,
                         uint64_t& rejected);

  storage::Storage& storage_;
  SnapshotSinkOptions opts_;
  std::vector<Entry> report_;  // up, scrape_duration_seconds, ... (target labels only)
  std::unordered_map<std::string, Entry> entries_;
  std::vector<std::vector<Entry*>> by_pos_;  // [family][series] of the last cycle
  std::vector<Entry*> live_, next_live_;     // entries seen in the last / this cycle
  std::string key_buf_;
  uint64_t cycle_ = 0;

  std::atomic<uint64_t> cycles_{0}, samples_{0}, rejected_{0}, stale_{0}, invalid_{0}, commit_errors_{0},
      labels_built_{0};
};

}  // namespace llmon::ingest
