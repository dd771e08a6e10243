// The promqltest Backend (runner.h) over the real pieces: a tsdb::Head (the
// store's in-memory part, a complete storage::Storage, the same code that
// serves queries in the agent) and promql::Engine. `clear` replaces both.
// Pinned variants parse the query (promql::parse), rewrite it with
// pinning.h and evaluate the tree. Test support only.
#pragma once

#include <memory>
#include <string>

#include "promql/engine.h"
#include "promql/parser.h"
#include "promql/promqltest/pinning.h"
#include "promql/promqltest/runner.h"
#include "tsdb/head.h"

namespace llmon::promqltest {

// Appends a load block to `storage` in one commit: the i-th value of a series
// at i * step (from 0), gaps skipped, staleness markers bit-exact.
inline Status append_load(storage::Storage& storage, const LoadCmd& cmd) {
  auto app = storage.appender();
  for (const LoadSeries& s : cmd.series) {
    storage::SeriesRef ref = 0;
    for (size_t i = 0; i < s.values.size(); ++i) {
      if (s.values[i].omitted) continue;
      int64_t t = static_cast<int64_t>(i) * cmd.step_ms;
      auto r = app->append(ref, s.labels, t, s.values[i].value);
      if (!r) {
        (void)app->rollback();
        return Status::error("line " + std::to_string(s.line) + ": append " + s.labels.to_string() + " at " +
                             std::to_string(t) + " ms: " + r.error());
      }
      ref = *r;
    }
  }
  return app->commit();
}

class EngineBackend final : public Backend {
 public:
  explicit EngineBackend(promql::EngineOptions options = {}) : options_(options) {}

  Status clear() override {
    engine_.reset();
    head_ = std::make_unique<tsdb::Head>();
    engine_ = std::make_unique<promql::Engine>(*head_, options_);
    return Status::ok();
  }

  Status load(const LoadCmd& cmd) override { return append_load(*head_, cmd); }

  promql::QueryResult instant(const QuerySpec& q, int64_t t_ms) override {
    if (!q.pin_at_ms) return engine_->instant(q.text, t_ms);
    promql::ParseResult p = promql::parse(q.text);
    if (!p.ok()) return engine_->instant(q.text, t_ms);  // reports the parse error
    pin_selectors(*p.expr, *q.pin_at_ms);
    return engine_->instant(*p.expr, t_ms);
  }

  promql::QueryResult range(const QuerySpec& q, int64_t start_ms, int64_t end_ms, int64_t step_ms) override {
    if (!q.pin_at_ms) return engine_->range(q.text, start_ms, end_ms, step_ms);
    promql::ParseResult p = promql::parse(q.text);
    if (!p.ok()) return engine_->range(q.text, start_ms, end_ms, step_ms);
    pin_selectors(*p.expr, *q.pin_at_ms);
    return engine_->range(*p.expr, start_ms, end_ms, step_ms);
  }

  bool pinnable(const std::string& query) override {
    promql::ParseResult p = promql::parse(query);
    return p.ok() && !calls_time_dependent(*p.expr);
  }

 private:
  promql::EngineOptions options_;
  std::unique_ptr<tsdb::Head> head_;
  std::unique_ptr<promql::Engine> engine_;
};

}  // namespace llmon::promqltest
