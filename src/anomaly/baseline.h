// A learned baseline of one series (docs/diagnosis.md "Baselines and
// anomalies"): a bounded ring of its recent one-minute features (the mean of
// the series over each minute), summarised by their median and median
// absolute deviation, and per hour of the day the median and MAD of that hour
// on the previous days (seasonality, once two earlier days are known). Pure:
// no I/O, time is passed in; not thread-safe (one owner).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace llmon::anomaly {

enum class Method {
  kMedianMad,  // robust: median and 1.4826 x MAD (the default)
  kMeanStd,    // mean and standard deviation (the alternative measured against it)
};

struct BaselineOptions {
  Method method = Method::kMedianMad;
  int ring = 60;              // features kept (one a minute: the last hour)
  int min_features = 30;      // features before the baseline is ready (cold start)
  double abs_floor = 0;       // the scale never goes below this (units of the series)
  double rel_floor = 0.02;    // ... nor below this share of |centre|
  int seasonal_days = 7;      // days per hour-of-day bucket
  int seasonal_min_days = 2;  // earlier days an hour needs before it counts
};

// The deviation of x from the baseline in units of its scale (a robust z).
struct Deviation {
  bool ready = false;  // enough history to say
  double z = 0;        // |x - centre| / scale; min of the recent and seasonal z
  double centre = 0;   // the recent centre (median or mean)
  double scale = 0;    // the recent scale after the floors
};

class Baseline {
 public:
  explicit Baseline(const BaselineOptions& o);
  // One feature at t_ms (features come in time order, about one a minute).
  void add(int64_t t_ms, double x);
  // x against what was learned before it (add() it afterwards to learn it).
  Deviation deviation(int64_t t_ms, double x) const;
  bool ready() const { return count_ >= opts_.min_features; }
  int count() const { return count_; }

 private:
  struct Stat {
    double centre = 0, scale = 0;
  };
  struct Hour {
    std::array<float, 8> centre{}, scale{};  // per earlier day, newest at (n-1) % 8
    std::array<int32_t, 8> day{};
    int n = 0;
  };
  Stat summarise(const float* v, int n) const;
  double floor_scale(double centre, double scale) const;
  void close_hour(int64_t hour_index);

  BaselineOptions opts_;
  std::vector<float> ring_;
  int head_ = 0, count_ = 0;
  Stat recent_;  // recomputed on add()
  // Seasonality: the features of the current hour, summarised when it ends.
  int64_t hour_index_ = -1;  // t_ms / 1h of the hour being filled
  std::vector<float> hour_buf_;
  std::array<Hour, 24> hours_{};
};

// z -> the exported score: min(1, z / 14). A series is anomalous at score >= 0.5 (z >= 7;
// chosen by measurement, docs/diagnosis.md).
double score_of(double z);
inline constexpr double kAnomalousScore = 0.5;

}  // namespace llmon::anomaly
