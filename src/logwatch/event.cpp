#include "logwatch/event.h"

namespace llmon::logwatch {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
    case Severity::kCritical: return "critical";
  }
  return "info";
}

bool parse_severity(std::string_view text, Severity& out) {
  if (text == "info") out = Severity::kInfo;
  else if (text == "warning" || text == "warn") out = Severity::kWarning;
  else if (text == "error") out = Severity::kError;
  else if (text == "critical" || text == "crit") out = Severity::kCritical;
  else return false;
  return true;
}

}  // namespace llmon::logwatch
