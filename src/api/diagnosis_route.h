// GET /api/v1/diagnosis?window=15m&time=T&selector=...&format=json|text:
// `llmon diagnose` over the agent's store (docs/diagnosis.md). JSON in the
// Prometheus API envelope ({"status":"success","data":{...llmon.diagnosis.v1}}),
// or the text report with format=text. Bad parameters answer 400 bad_data.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "http/server.h"
#include "promql/engine.h"

namespace llmon::api {

struct DiagnosisRouteOptions {
  // The agent's own job and instance (known once the port is bound).
  std::function<std::string()> default_selector;
  std::map<std::string, double> gpu_price;
  int64_t default_window_ms = 15 * 60 * 1000;
};

// engine and clock must outlive the server.
Status register_diagnosis_route(http::Server& server, promql::Engine& engine, const base::Clock& clock,
                                DiagnosisRouteOptions options);

}  // namespace llmon::api
