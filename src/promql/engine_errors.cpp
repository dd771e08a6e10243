// Prometheus API error types: their names (web/api/v1/api.go).
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

}  // namespace llmon::promql
