#include "anomaly/series.h"

#include <algorithm>

#include "model/sample.h"

namespace llmon::anomaly {

namespace {

Expected<model::Labels> labels_for(const std::vector<model::Label>& target, const char* name, const SeriesScore* s) {
  std::vector<model::Label> pairs;
  pairs.push_back({"__name__", name});
  if (s) {
    for (const auto& l : s->labels.pairs()) {
      if (l.name != "__name__" && l.name != "metric") pairs.push_back(l);
    }
    pairs.push_back({"metric", s->metric});
  }
  for (const auto& t : target) {
    bool taken = false;
    for (const auto& p : pairs) taken = taken || p.name == t.name;
    if (!taken) pairs.push_back(t);
  }
  return model::Labels::make(std::move(pairs));
}

}  // namespace

Status AnomalySeries::write(const Scorer& scorer, storage::Appender& app, int64_t t_ms) {
  std::vector<model::Labels> now;
  auto put = [&](Expected<model::Labels> l, double v) -> Status {
    if (!l) return Status::ok();
    if (auto r = app.append(0, *l, t_ms, v); !r) return Status::error(r.error());
    now.push_back(std::move(*l));
    return Status::ok();
  };
  for (const SeriesScore* s : scorer.series()) {
    if (s->t_ms != t_ms) continue;
    if (Status st = put(labels_for(target_, kReadyMetric, s), s->ready ? 1 : 0); !st) return st;
    if (!s->ready) continue;
    if (Status st = put(labels_for(target_, kScoreMetric, s), s->score); !st) return st;
  }
  if (double rate = scorer.node_rate(); rate >= 0) {
    if (Status st = put(labels_for(target_, kNodeRateMetric, nullptr), rate); !st) return st;
  }
  std::sort(now.begin(), now.end());
  for (const auto& l : active_) {
    if (std::binary_search(now.begin(), now.end(), l)) continue;
    if (auto r = app.append(0, l, t_ms, model::stale_nan()); !r) return Status::error(r.error());
  }
  if (Status s = app.commit(); !s) return s;
  active_ = std::move(now);
  return Status::ok();
}

}  // namespace llmon::anomaly
