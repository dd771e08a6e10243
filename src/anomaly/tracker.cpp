#include "anomaly/tracker.h"

#include <algorithm>
#include <variant>

#include "promql/parser.h"

namespace llmon::anomaly {

Tracker::Tracker(promql::Engine& engine, std::string_view selector, ScorerOptions o) : engine_(engine), scorer_(o) {
  for (const Metric& m : curated_metrics()) {
    Query q{&m, with_selector(m.expr, selector), nullptr};
    promql::ParseResult p = promql::parse(q.text);
    if (!p.ok()) {
      errors_.push_back(q.text + ": " + p.error.to_string(q.text));
      continue;
    }
    q.expr = std::move(p.expr);
    queries_.push_back(std::move(q));
  }
}

void Tracker::rebuild(int64_t start_ms, int64_t end_ms) {
  errors_.clear();
  const int64_t step = scorer_.options().learn_every_ms;
  if (end_ms < start_ms) return;
  start_ms = end_ms - (end_ms - start_ms) / step * step;  // the last point is end_ms
  // Every series' points in time order, merged over the metrics.
  struct Point {
    int64_t t;
    const Metric* m;
    const model::Labels* l;
    double v;
  };
  std::vector<promql::Matrix> results;
  std::vector<Point> points;
  results.reserve(queries_.size());
  for (const Query& q : queries_) {
    promql::QueryResult r = engine_.range(*q.expr, start_ms, end_ms, step);
    if (!r.ok()) {
      errors_.push_back(q.text + ": " + r.error->message);
      continue;
    }
    auto* m = std::get_if<promql::Matrix>(&r.value);
    if (!m) continue;
    results.push_back(std::move(*m));
    for (const auto& s : results.back()) {
      for (const auto& p : s.samples) points.push_back({p.t_ms, q.metric, &s.labels, p.v});
    }
  }
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.t < b.t; });
  for (const Point& p : points) scorer_.observe(p.m->name, *p.l, p.m->abs_floor, p.t, p.v);
}

void Tracker::update(int64_t t_ms) {
  errors_.clear();
  for (const Query& q : queries_) {
    promql::QueryResult r = engine_.instant(*q.expr, t_ms);
    if (!r.ok()) {
      errors_.push_back(q.text + ": " + r.error->message);
      continue;
    }
    auto* v = std::get_if<promql::Vector>(&r.value);
    if (!v) continue;
    for (const auto& s : *v) scorer_.observe(q.metric->name, s.labels, q.metric->abs_floor, t_ms, s.v);
  }
}

}  // namespace llmon::anomaly
