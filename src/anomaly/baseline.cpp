#include "anomaly/baseline.h"

#include <algorithm>
#include <cmath>

namespace llmon::anomaly {

namespace {

constexpr int64_t kHourMs = 3'600'000;
constexpr size_t kHourBufMax = 120;
constexpr size_t kHourMinFeatures = 30;

double median_of(float* v, int n) {
  std::nth_element(v, v + n / 2, v + n);
  double m = v[n / 2];
  if (n % 2 == 0) m = (m + *std::max_element(v, v + n / 2)) / 2;
  return m;
}

}  // namespace

Baseline::Baseline(const BaselineOptions& o) : opts_(o) {
  opts_.ring = std::max(opts_.ring, 2);
  opts_.min_features = std::clamp(opts_.min_features, 1, opts_.ring);
  opts_.seasonal_days = std::clamp(opts_.seasonal_days, 1, 8);
  ring_.assign(static_cast<size_t>(opts_.ring), 0.0F);
}

Baseline::Stat Baseline::summarise(const float* v, int n) const {
  Stat s;
  if (n <= 0) return s;
  if (opts_.method == Method::kMeanStd) {
    double sum = 0, sq = 0;
    for (int i = 0; i < n; ++i) sum += v[i];
    s.centre = sum / n;
    for (int i = 0; i < n; ++i) sq += (v[i] - s.centre) * (v[i] - s.centre);
    s.scale = std::sqrt(sq / n);
    return s;
  }
  std::vector<float> tmp(v, v + n);
  s.centre = median_of(tmp.data(), n);
  for (auto& x : tmp) x = static_cast<float>(std::fabs(x - s.centre));
  s.scale = 1.4826 * median_of(tmp.data(), n);
  return s;
}

double Baseline::floor_scale(double centre, double scale) const {
  return std::max({scale, opts_.abs_floor, opts_.rel_floor * std::fabs(centre), 1e-9});
}

void Baseline::close_hour(int64_t hour_index) {
  if (hour_buf_.size() < kHourMinFeatures) return;
  Stat s = summarise(hour_buf_.data(), static_cast<int>(hour_buf_.size()));
  Hour& h = hours_[static_cast<size_t>(hour_index % 24)];
  size_t slot = static_cast<size_t>(h.n % 8);
  h.centre[slot] = static_cast<float>(s.centre);
  h.scale[slot] = static_cast<float>(s.scale);
  h.day[slot] = static_cast<int32_t>(hour_index / 24);
  h.n = std::min(h.n + 1, 1 << 20);
}

void Baseline::add(int64_t t_ms, double x) {
  if (!std::isfinite(x)) return;
  int64_t hi = t_ms / kHourMs;
  if (hi != hour_index_) {
    if (hour_index_ >= 0) close_hour(hour_index_);
    hour_buf_.clear();
    hour_index_ = hi;
  }
  if (hour_buf_.size() < kHourBufMax) hour_buf_.push_back(static_cast<float>(x));
  ring_[static_cast<size_t>(head_)] = static_cast<float>(x);
  head_ = (head_ + 1) % opts_.ring;
  count_ = std::min(count_ + 1, opts_.ring);
  recent_ = summarise(ring_.data(), count_);  // the ring's first count_ slots are the filled ones until it wraps
}

Deviation Baseline::deviation(int64_t t_ms, double x) const {
  Deviation d;
  if (!ready() || !std::isfinite(x)) return d;
  d.ready = true;
  d.centre = recent_.centre;
  d.scale = floor_scale(recent_.centre, recent_.scale);
  d.z = std::fabs(x - d.centre) / d.scale;
  // The same hour on earlier days: what is usual at this time of day is not anomalous.
  int64_t hi = t_ms / kHourMs;
  const Hour& h = hours_[static_cast<size_t>(hi % 24)];
  int32_t today = static_cast<int32_t>(hi / 24);
  float c[8], s[8];
  int n = 0;
  for (int i = 0; i < std::min(h.n, 8); ++i) {
    if (h.day[static_cast<size_t>(i)] >= today || h.day[static_cast<size_t>(i)] < today - opts_.seasonal_days) continue;
    c[n] = h.centre[static_cast<size_t>(i)];
    s[n] = h.scale[static_cast<size_t>(i)];
    ++n;
  }
  if (n >= opts_.seasonal_min_days) {
    double sc = median_of(c, n);
    double ss = floor_scale(sc, median_of(s, n));
    d.z = std::min(d.z, std::fabs(x - sc) / ss);
  }
  return d;
}

double score_of(double z) {
  return std::clamp(z / 14.0, 0.0, 1.0);
}

}  // namespace llmon::anomaly
