// The Pushgateway push API on the agent's server (--web.enable-push,
// docs/scrape.md "Pushes"): PUT, POST and DELETE on
// /metrics/job/<job>{/<label>/<value>} (and the @base64 forms), OPTIONS, and
// 405 for other methods, answered by scrape::PushIngest. Adapts HTTP only:
// undoes Content-Encoding: gzip (400 when it does not decode, or decodes to
// more than `max_decoded_bytes`), passes the Content-Type (protobuf or
// text), writes the status, body and Allow header. The route does not serve
// /metrics itself (the agent's own page stays as it is).
#pragma once

#include <cstddef>

#include "base/status.h"
#include "http/server.h"
#include "scrape/push_ingest.h"

namespace llmon::api {

struct PushRouteOptions {
  size_t max_body_bytes = 16u << 20;     // as received (413 beyond)
  size_t max_decoded_bytes = 64u << 20;  // after gunzip
};

// `push` must outlive the server's routes.
Status register_push_route(http::Server& server, scrape::PushIngest& push, PushRouteOptions opts = {});

}  // namespace llmon::api
