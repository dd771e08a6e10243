// Where detectors read from: instant PromQL queries at one time. The agent
// and `llmon diagnose --storage.path` answer them with promql::Engine over
// the store; tests may do the same over a store they fill.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "promql/engine.h"

namespace llmon::diagnose {

class QuerySource {
 public:
  virtual ~QuerySource() = default;
  // An instant vector (scalars become one sample with no labels). Errors
  // carry the query and the engine's message.
  virtual Expected<promql::Vector> instant(std::string_view expr, int64_t t_ms) = 0;
};

class EngineSource final : public QuerySource {
 public:
  explicit EngineSource(promql::Engine& engine) : engine_(engine) {}
  Expected<promql::Vector> instant(std::string_view expr, int64_t t_ms) override;

 private:
  promql::Engine& engine_;
};

}  // namespace llmon::diagnose
