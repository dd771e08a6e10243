#include "health/health_types.h"

namespace llmon::health {

std::string_view state_name(HealthState s) {
  switch (s) {
    case HealthState::kHealthy:
      return "healthy";
    case HealthState::kDegraded:
      return "degraded";
    case HealthState::kUnhealthy:
      return "unhealthy";
  }
  return "healthy";
}

}  // namespace llmon::health
