// The HTTP status code an API answer carries for a PromQL error, as
// Prometheus's web/api/v1/api.go sets it: bad_data 400, execution 422,
// canceled 499, timeout 503, internal 500, unavailable 503. The engine knows
// error types only; this mapping is the API's.
#pragma once

#include "promql/engine.h"

namespace llmon::api {

int http_status(promql::ErrorType t);

}  // namespace llmon::api
