// Prometheus's rule and alert endpoints over the rule manager's snapshots,
// in Prometheus 2.42's JSON shape (field names, order and omissions checked
// against a real Prometheus 2.42):
//   GET /api/v1/rules[?type=alert|record]   groups, their rules and alerts
//   GET /api/v1/alerts                      every pending or firing alert
// The encoders are pure functions of the snapshots (rules/group.h) so they
// are tested without a server; register_rules_api adapts HTTP to them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "http/server.h"
#include "rules/group.h"

namespace llmon::api {

using RuleSnapshotSource = std::function<std::vector<rules::GroupSnapshot>()>;

// The `data` object of /api/v1/rules. type_filter: "" (all), "alert" or
// "record"; groups left without rules by the filter are left out, as in
// Prometheus.
std::string encode_rules_data(const std::vector<rules::GroupSnapshot>& groups, std::string_view type_filter);
// The `data` object of /api/v1/alerts: the active alerts of every alerting
// rule in group and rule order.
std::string encode_alerts_data(const std::vector<rules::GroupSnapshot>& groups);

// Registers both routes (GET). The source is called once per request.
Status register_rules_api(http::Server& server, RuleSnapshotSource source);

}  // namespace llmon::api
