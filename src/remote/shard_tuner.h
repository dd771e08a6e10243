// How many requests a queue keeps in flight (docs/remote_write.md
// "Shards"): Prometheus's resharding rule (storage/remote/queue_manager.go,
// calculateDesiredShards) over what the queue measured. Every update
// interval (10 s) the rates of the last interval are folded into
// exponentially weighted averages (weight 0.2); then
//
//   time_per_sample = send_seconds / samples_out     (one request's time per sample)
//   pending         = delay_seconds * in_rate        (samples behind)
//   desired         = time_per_sample * (in_rate + 0.05 * pending)
//
// kept at the current count while within 30 % of it, otherwise rounded up
// and clamped to [min_shards, max_shards]. in_rate is the store's ingest
// rate, read from the samples' timestamps (samples per second of data
// time), so it holds during a catch-up too. Also the catch-up cap: while
// behind, a queue sends at most catch_up_factor x in_rate samples per
// second (0: unbounded), so replaying an outage leaves the receiver, the
// disk and the CPU to new samples too. Pure: no clock, no I/O.
#pragma once

#include <cstdint>

namespace llmon::remote {

struct ShardTunerOptions {
  uint64_t min_shards = 1;
  uint64_t max_shards = 50;
  double update_interval_s = 10;
};

class ShardTuner {
 public:
  explicit ShardTuner(ShardTunerOptions o);

  // One request acknowledged (or dropped): its samples and send time.
  void observe_sent(uint64_t samples, double seconds);
  // Samples read from the store with their timestamp range (ms) and how
  // many of them have the oldest timestamp: the rate counts the samples
  // after the window's first instant over its span (samples/span would
  // count one scrape too many).
  void observe_read(uint64_t samples, int64_t min_t_ms, int64_t max_t_ms, uint64_t at_min_t);

  // Folds the interval's measures in when update_interval_s passed since
  // the last update (now_s: monotonic seconds) and returns the new shard
  // count; `delay_s` is how far the newest sent sample is behind now.
  uint64_t update(double now_s, double delay_s);

  uint64_t shards() const { return shards_; }
  uint64_t desired() const { return desired_; }
  double in_rate() const { return in_rate_; }  // samples/s, 0 until measured
  // The catch-up cap in samples/s for `factor` (0 when unbounded or not measured yet).
  double catch_up_rate(double factor) const;

  // The rule itself, for tests.
  static double desired_shards(double time_per_sample_s, double in_rate, double delay_s);

 private:
  ShardTunerOptions o_;
  uint64_t shards_, desired_;
  double last_update_s_ = -1;
  // This interval's sums.
  uint64_t out_samples_ = 0;
  double out_seconds_ = 0;
  uint64_t in_samples_ = 0, in_at_min_ = 0;
  int64_t in_min_t_ = 0, in_max_t_ = 0;
  // Averages.
  double out_rate_ = 0, out_duration_ = 0, in_rate_ = 0;
  bool have_rates_ = false;
};

}  // namespace llmon::remote
