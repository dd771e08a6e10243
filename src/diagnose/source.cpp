#include "diagnose/source.h"

#include <variant>

namespace llmon::diagnose {

Expected<promql::Vector> EngineSource::instant(std::string_view expr, int64_t t_ms) {
  promql::QueryResult r = engine_.instant(expr, t_ms);
  if (!r.ok()) return Status::error(std::string(expr) + ": " + r.error->message);
  if (auto* v = std::get_if<promql::Vector>(&r.value)) return std::move(*v);
  if (auto* s = std::get_if<promql::Scalar>(&r.value)) return promql::Vector{{{}, s->t_ms, s->v}};
  return Status::error(std::string(expr) + ": not an instant vector");
}

}  // namespace llmon::diagnose
