// GET /api/v1/events?start=T&end=T&rule=NAME&source=GLOB&severity=MIN&limit=N:
// the log watcher's events from its journal (logwatch/event_journal.h),
// newest first, in the Prometheus API envelope:
//   {"status":"success","data":{"events":[{...event_json with rfc3339...}]}}
// start/end are RFC 3339 or Unix seconds (default: everything); severity is
// the least severe level returned (info, warning, error, critical); limit
// defaults to 100 (at most 10000). Bad parameters answer 400 bad_data; a
// journal that cannot be read answers 503 unavailable. The journal is read
// read-only (query_events), beside the watcher that writes it.
#pragma once

#include <string>

#include "base/status.h"
#include "http/server.h"

namespace llmon::api {

Status register_events_route(http::Server& server, std::string journal_dir);

}  // namespace llmon::api
