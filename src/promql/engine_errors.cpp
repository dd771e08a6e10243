// Prometheus API error types: names and HTTP status codes (web/api/v1/api.go).
#include "promql/engine.h"

namespace llmon::promql {

std::string_view error_type_text(ErrorType t) {
  switch (t) {
    case ErrorType::kBadData:
      return "bad_data";
    case ErrorType::kExecution:
      return "execution";
    case ErrorType::kCanceled:
      return "canceled";
    case ErrorType::kTimeout:
      return "timeout";
    case ErrorType::kInternal:
      return "internal";
    case ErrorType::kUnavailable:
      return "unavailable";
  }
  return "internal";
}

int error_http_status(ErrorType t) {
  switch (t) {
    case ErrorType::kBadData:
      return 400;
    case ErrorType::kExecution:
      return 422;
    case ErrorType::kCanceled:
      return 499;
    case ErrorType::kTimeout:
      return 503;
    case ErrorType::kInternal:
      return 500;
    case ErrorType::kUnavailable:
      return 503;
  }
  return 500;
}

}  // namespace llmon::promql
