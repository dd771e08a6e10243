#include "anomaly/scorer.h"

#include <algorithm>

namespace llmon::anomaly {

void Scorer::observe(std::string_view metric, const model::Labels& labels, double abs_floor, int64_t t_ms, double x) {
  std::string key(metric);
  key += '\0';
  key += labels.to_string();
  auto it = series_.find(key);
  if (it == series_.end()) {
    if (series_.size() >= opts_.max_series) return;
    BaselineOptions bo = opts_.baseline;
    bo.abs_floor = abs_floor;
    Entry e{SeriesScore{std::string(metric), labels}, Baseline(bo)};
    it = series_.emplace(std::move(key), std::move(e)).first;
  }
  Entry& e = it->second;
  SeriesScore& s = e.s;
  Deviation d = e.baseline.deviation(t_ms, x);
  s.ready = d.ready;
  s.value = x;
  s.t_ms = t_ms;
  s.centre = d.centre;
  s.scale = d.scale;
  s.score = d.ready ? score_of(d.z) : 0;
  if (s.anomalous()) {
    if (s.last_anomalous_ms < 0 || s.since_ms < 0 || s.last_anomalous_ms < t_ms - 2 * opts_.learn_every_ms) {
      s.since_ms = t_ms;  // a new stretch (a gap of two minutes or more ends the last one)
      s.peak_score = 0;
    }
    s.last_anomalous_ms = t_ms;
    s.peak_score = std::max(s.peak_score, s.score);
  }
  if (e.last_learn_ms < 0 || t_ms - e.last_learn_ms >= opts_.learn_every_ms - 1000) {
    e.baseline.add(t_ms, x);
    e.last_learn_ms = t_ms;
  }
}

std::vector<SeriesScore> Scorer::forget(int64_t t_ms) {
  std::vector<SeriesScore> gone;
  for (auto it = series_.begin(); it != series_.end();) {
    if (it->second.s.t_ms < t_ms - opts_.forget_after_ms) {
      gone.push_back(std::move(it->second.s));
      it = series_.erase(it);
    } else {
      ++it;
    }
  }
  return gone;
}

double Scorer::node_rate() const {
  int64_t latest = 0;
  for (const auto& [k, e] : series_) latest = std::max(latest, e.s.t_ms);
  size_t ready = 0, anomalous = 0;
  for (const auto& [k, e] : series_) {
    if (e.s.t_ms != latest || !e.s.ready) continue;
    ++ready;
    anomalous += e.s.anomalous();
  }
  return ready == 0 ? -1 : static_cast<double>(anomalous) / static_cast<double>(ready);
}

size_t Scorer::ready_count() const {
  size_t n = 0;
  for (const auto& [k, e] : series_) n += e.s.ready;
  return n;
}

std::vector<const SeriesScore*> Scorer::series() const {
  std::vector<const SeriesScore*> out;
  out.reserve(series_.size());
  for (const auto& [k, e] : series_) out.push_back(&e.s);
  return out;
}

std::vector<const SeriesScore*> Scorer::anomalies(int64_t since_ms) const {
  std::vector<const SeriesScore*> out;
  for (const auto& [k, e] : series_) {
    if (e.s.last_anomalous_ms >= since_ms && e.s.last_anomalous_ms >= 0) out.push_back(&e.s);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SeriesScore* a, const SeriesScore* b) { return a->peak_score > b->peak_score; });
  return out;
}

}  // namespace llmon::anomaly
