// The alert as notifiers see it: what Prometheus posts to Alertmanager's
// /api/v2/alerts (PostableAlert) and what llmon's own router, webhook, email
// and exec receivers consume. A plain value; the rules module produces these
// (one per active or recently resolved alert each time it sends), the notify
// module queues, routes and delivers them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmon::notify {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;  // sorted by name, unique

struct Alert {
  LabelPairs labels;       // includes alertname; sorted by name
  LabelPairs annotations;  // sorted by name
  int64_t starts_at_ms = 0;
  // Firing: when the alert stops being valid unless resent (Prometheus's
  // ValidUntil = eval time + 4 * max(resend delay, group interval)).
  // Resolved: the time it resolved. 0: unset.
  int64_t ends_at_ms = 0;
  std::string generator_url;

  // An alert is resolved at `now_ms` once its end time has passed.
  bool resolved_at(int64_t now_ms) const { return ends_at_ms != 0 && ends_at_ms <= now_ms; }
  std::string_view label(std::string_view name) const {
    for (const auto& [k, v] : labels)
      if (k == name) return v;
    return {};
  }
};

}  // namespace llmon::notify
