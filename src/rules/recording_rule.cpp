// Recording rule evaluation (Prometheus rules/recording.go).
#include "rules/recording_rule.h"

#include <set>

namespace llmon::rules {

Expected<promql::Vector> RecordingRule::eval(const EvalContext& ctx) {
  auto res = query_vector(*ctx.engine, expr(), ctx.ts_ms - ctx.query_offset_ms);
  if (!res) return res.status();
  promql::Vector& vec = *res;
  for (auto& s : vec) {
    s.t_ms = ctx.ts_ms - ctx.query_offset_ms;
    LabelsBuilder lb(s.labels);
    lb.set("__name__", name());
    for (const auto& [k, v] : labels()) lb.set(k, v);
    s.labels = lb.labels();
  }
  std::set<model::Labels> seen;
  for (const auto& s : vec) {
    if (!seen.insert(s.labels).second)
      return Status::error("vector contains metrics with the same labelset after applying rule labels");
  }
  if (ctx.limit > 0 && static_cast<int64_t>(vec.size()) > ctx.limit)
    return Status::error("exceeded limit of " + std::to_string(ctx.limit) + " with " + std::to_string(vec.size()) +
                         " series");
  return res;
}

}  // namespace llmon::rules
