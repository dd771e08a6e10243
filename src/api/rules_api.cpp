#include "api/rules_api.h"

#include "api/json.h"
#include "api/params.h"
#include "go/json.h"
#include "go/strconv.h"

namespace llmon::api {

namespace {

using go::json::append_quoted;
using go::json::append_string_map;

// Go's time.Time JSON; an unset time is Go's zero time.
void append_time(std::string& out, const std::optional<int64_t>& ms) {
  out += '"';
  out += ms ? go::json::go_time(*ms) : std::string(go::json::kGoZeroTime);
  out += '"';
}

void append_seconds(std::string& out, double s) { api::append_go_json_float(out, s); }

void append_alert(std::string& out, const rules::AlertSnapshot& a) {
  out += "{\"labels\":";
  append_string_map(out, a.labels);
  out += ",\"annotations\":";
  append_string_map(out, a.annotations);
  out += ",\"state\":";
  append_quoted(out, rules::alert_state_text(a.state));
  out += ",\"activeAt\":";
  append_time(out, a.active_at_ms);
  out += ",\"value\":";
  // strconv.FormatFloat(value, 'e', -1, 64), as Prometheus's rulesAlertsToAPIAlerts.
  append_quoted(out, go::format_float(a.value, 'e', -1));
  out += '}';
}

void append_rule(std::string& out, const rules::RuleSnapshot& r) {
  const bool alerting = r.kind == rules::RuleSpec::Kind::kAlerting;
  out += '{';
  if (alerting) {
    out += "\"state\":";
    append_quoted(out, rules::alert_state_text(r.state));
    out += ',';
  }
  out += "\"name\":";
  append_quoted(out, r.name);
  out += ",\"query\":";
  append_quoted(out, r.query);
  if (alerting) {
    out += ",\"duration\":";
    append_seconds(out, static_cast<double>(r.for_ms) / 1000.0);
    out += ",\"keepFiringFor\":";
    append_seconds(out, static_cast<double>(r.keep_firing_for_ms) / 1000.0);
    out += ",\"labels\":";
    append_string_map(out, r.labels);
    out += ",\"annotations\":";
    append_string_map(out, r.annotations);
    out += ",\"alerts\":[";
    for (size_t i = 0; i < r.alerts.size(); ++i) {
      if (i) out += ',';
      append_alert(out, r.alerts[i]);
    }
    out += ']';
  } else if (!r.labels.empty()) {  // `labels,omitempty` for recording rules
    out += ",\"labels\":";
    append_string_map(out, r.labels);
  }
  out += ",\"health\":";
  append_quoted(out, rules::rule_health_text(r.health));
  if (!r.last_error.empty()) {
    out += ",\"lastError\":";
    append_quoted(out, r.last_error);
  }
  out += ",\"evaluationTime\":";
  append_seconds(out, r.evaluation_time_s);
  out += ",\"lastEvaluation\":";
  append_time(out, r.last_evaluation_ms);
  out += ",\"type\":";
  out += alerting ? "\"alerting\"" : "\"recording\"";
  out += '}';
}

}  // namespace

std::string encode_rules_data(const std::vector<rules::GroupSnapshot>& groups, std::string_view type_filter) {
  const bool want_alert = type_filter.empty() || type_filter == "alert";
  const bool want_record = type_filter.empty() || type_filter == "record";
  std::string out = "{\"groups\":[";
  bool first_group = true;
  for (const auto& g : groups) {
    std::string rules_json;
    size_t n = 0;
    for (const auto& r : g.rules) {
      const bool alerting = r.kind == rules::RuleSpec::Kind::kAlerting;
      if (alerting ? !want_alert : !want_record) continue;
      if (n++) rules_json += ',';
      append_rule(rules_json, r);
    }
    if (n == 0 && !type_filter.empty()) continue;
    if (!first_group) out += ',';
    first_group = false;
    out += "{\"name\":";
    append_quoted(out, g.name);
    out += ",\"file\":";
    append_quoted(out, g.file);
    out += ",\"rules\":[";
    out += rules_json;
    out += "],\"interval\":";
    append_seconds(out, static_cast<double>(g.interval_ms) / 1000.0);
    out += ",\"limit\":";
    out += std::to_string(g.limit);
    out += ",\"evaluationTime\":";
    append_seconds(out, g.evaluation_time_s);
    out += ",\"lastEvaluation\":";
    append_time(out, g.last_evaluation_ms);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string encode_alerts_data(const std::vector<rules::GroupSnapshot>& groups) {
  std::string out = "{\"alerts\":[";
  bool first = true;
  for (const auto& g : groups)
    for (const auto& r : g.rules)
      for (const auto& a : r.alerts) {
        if (!first) out += ',';
        first = false;
        append_alert(out, a);
      }
  out += "]}";
  return out;
}

Status register_rules_api(http::Server& server, RuleSnapshotSource source) {
  auto json = [](http::Response& res, int status, std::string body) {
    res.status = status;
    res.content_type = "application/json";
    res.body = std::move(body);
  };
  Status s = server.add_route("/api/v1/rules", {"GET"}, [source, json](const http::Request& req, http::Response& res) {
    auto form = api::parse_form(req.method, req.header("content-type"), req.query, req.body);
    if (!form) return json(res, 400, api::error_envelope(promql::ErrorType::kBadData, form.error()));
    std::string type(form->get("type"));
    if (!type.empty() && type != "alert" && type != "record")
      return json(res, 400,
                  api::error_envelope(promql::ErrorType::kBadData,
                                      "invalid parameter \"type\": not supported value \"" + type + "\""));
    json(res, 200, api::success_envelope(encode_rules_data(source(), type)));
  });
  if (!s) return s;
  return server.add_route("/api/v1/alerts", {"GET"}, [source, json](const http::Request&, http::Response& res) {
    json(res, 200, api::success_envelope(encode_alerts_data(source())));
  });
}

}  // namespace llmon::api
