#include "remote/shard_tuner.h"

#include <algorithm>
#include <cmath>

namespace llmon::remote {
namespace {

constexpr double kEwmaWeight = 0.2;
constexpr double kTolerance = 0.3;
constexpr double kBacklogCatchup = 0.05;

double ewma(double avg, double sample, bool first) {
  return first ? sample : avg + kEwmaWeight * (sample - avg);
}

}  // namespace

ShardTuner::ShardTuner(ShardTunerOptions o) : o_(o), shards_(std::max<uint64_t>(1, o.min_shards)), desired_(shards_) {}

void ShardTuner::observe_sent(uint64_t samples, double seconds) {
  out_samples_ += samples;
  out_seconds_ += seconds;
}

void ShardTuner::observe_read(uint64_t samples, int64_t min_t_ms, int64_t max_t_ms, uint64_t at_min_t) {
  if (samples == 0) return;
  if (in_samples_ == 0 || min_t_ms < in_min_t_) {
    in_min_t_ = min_t_ms;
    in_at_min_ = at_min_t;
  } else if (min_t_ms == in_min_t_) {
    in_at_min_ += at_min_t;
  }
  in_max_t_ = in_samples_ == 0 ? max_t_ms : std::max(in_max_t_, max_t_ms);
  in_samples_ += samples;
}

double ShardTuner::desired_shards(double time_per_sample_s, double in_rate, double delay_s) {
  const double pending = std::max(0.0, delay_s) * in_rate;
  return time_per_sample_s * (in_rate + kBacklogCatchup * pending);
}

uint64_t ShardTuner::update(double now_s, double delay_s) {
  if (last_update_s_ < 0) {
    last_update_s_ = now_s;
    return shards_;
  }
  const double dt = now_s - last_update_s_;
  if (dt < o_.update_interval_s) return shards_;
  last_update_s_ = now_s;
  // The ingest rate in data time: samples over the span their timestamps
  // cover (at least the interval's worth of one scrape).
  const double span_s = static_cast<double>(in_max_t_ - in_min_t_) / 1000.0;
  const bool first = !have_rates_;
  if (out_samples_ > 0) {
    out_rate_ = ewma(out_rate_, static_cast<double>(out_samples_) / dt, first);
    out_duration_ = ewma(out_duration_, out_seconds_ / dt, first);
    if (in_samples_ > 0 && span_s >= 1)
      in_rate_ = ewma(in_rate_, static_cast<double>(in_samples_ - in_at_min_) / span_s, first);
    have_rates_ = true;
  }
  out_samples_ = 0;
  out_seconds_ = 0;
  in_samples_ = 0;
  in_at_min_ = 0;
  if (!have_rates_ || out_rate_ <= 0) return shards_;
  const double d = desired_shards(out_duration_ / out_rate_, in_rate_, delay_s);
  const double lower = static_cast<double>(shards_) * (1 - kTolerance);
  const double upper = static_cast<double>(shards_) * (1 + kTolerance);
  uint64_t want = static_cast<uint64_t>(std::ceil(std::max(d, 0.0)));
  want = std::clamp<uint64_t>(want, std::max<uint64_t>(1, o_.min_shards), std::max<uint64_t>(1, o_.max_shards));
  desired_ = want;
  if (d >= lower && d <= upper) return shards_;
  shards_ = want;
  return shards_;
}

double ShardTuner::catch_up_rate(double factor) const {
  if (factor <= 0 || in_rate_ <= 0) return 0;
  return factor * in_rate_;
}

}  // namespace llmon::remote
