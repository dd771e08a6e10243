// The GPU health API (docs/gpu-health.md), in the Prometheus API envelope:
//   GET  /api/v1/health                  {"status":"success","data":<health_json>}
//   POST /api/v1/health/set-healthy?gpu=G  (or gpu=G as a form body): the
//        operator's "repaired" for GPU G (index, UUID or PCI address);
//        answers the whole snapshot after it; 400 bad_data without gpu or
//        for a GPU the tracker does not know, 503 unavailable when the state
//        could not be saved (the override holds in memory until restart).
#pragma once

#include <memory>

#include "base/status.h"
#include "health/gpu_health.h"
#include "http/server.h"

namespace llmon::api {

Status register_health_routes(http::Server& server, std::shared_ptr<health::HealthTracker> tracker);

}  // namespace llmon::api
