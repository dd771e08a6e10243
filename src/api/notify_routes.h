// The HTTP routes of the notification pipeline: Alertmanager's silence API v2
// (GET/POST /api/v2/silences, GET/DELETE /api/v2/silence/<id>, so amtool
// works against the agent) and our delivery status (GET
// /api/v1/notifications: per-target counters and the recent failures).
// Handlers run on server threads; `pipeline` and `clock` must outlive the
// server's routes.
#pragma once

#include "base/clock.h"
#include "base/status.h"
#include "http/server.h"
#include "notify/pipeline.h"

namespace llmon::api {

Status register_notify_routes(http::Server& server, notify::Pipeline& pipeline, const base::Clock& clock);

}  // namespace llmon::api
