// HTTP status codes of PromQL errors (errors.h), as web/api/v1/api.go's
// returnAPIError sets them.
#include "api/errors.h"

namespace llmon::api {

int http_status(promql::ErrorType t) {
  switch (t) {
    case promql::ErrorType::kBadData:
      return 400;
    case promql::ErrorType::kExecution:
      return 422;
    case promql::ErrorType::kCanceled:
      return 499;
    case promql::ErrorType::kTimeout:
      return 503;
    case promql::ErrorType::kInternal:
      return 500;
    case promql::ErrorType::kUnavailable:
      return 503;
  }
  return 500;
}

}  // namespace llmon::api
