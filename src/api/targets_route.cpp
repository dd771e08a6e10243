#include "api/targets_route.h"

#include <algorithm>

#include "api/json.h"
#include "api/params.h"
#include "base/strings.h"
#include "go/json.h"
#include "promql/label_functions.h"
#include "promql/parser.h"

namespace llmon::api {
namespace {

void fail(http::Response& res, const std::string& why) {
  res.status = 400;
  res.content_type = "application/json";
  res.body = error_envelope(promql::ErrorType::kBadData, why);
}

void labels_json(std::string& out, const std::vector<model::Label>& ls) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& l : ls) pairs.emplace_back(l.name, l.value);
  go::json::append_string_map(out, pairs);
}

void field(std::string& out, std::string_view name, std::string_view value, bool comma = true) {
  if (comma) out += ',';
  go::json::append_quoted(out, name);
  out += ':';
  go::json::append_quoted(out, value);
}

std::string seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", s);
  return buf;
}

void targets(const scrape::Manager* m, const http::Request& req, http::Response& res) {
  auto form = parse_form(req.method, req.header("content-type"), req.query, req.body);
  if (!form) return fail(res, form.error());
  const std::string state(form->has("state") ? form->get("state") : "any");
  const std::string pool(form->get("scrapePool"));
  const bool any = state.empty() || state == "any";
  const bool active = any || state == "active", dropped = any || state == "dropped";
  scrape::ManagerStatus st = m ? m->status() : scrape::ManagerStatus{};
  std::string data = "{";
  if (active) {
    data += "\"activeTargets\":[";
    bool first = true;
    for (const auto& t : st.active) {
      if (!pool.empty() && t.job != pool) continue;
      if (!first) data += ',';
      first = false;
      data += "{\"discoveredLabels\":";
      labels_json(data, t.discovered_labels);
      data += ",\"labels\":";
      labels_json(data, t.labels);
      field(data, "scrapePool", t.job);
      field(data, "scrapeUrl", t.scrape_url);
      field(data, "globalUrl", t.scrape_url);
      field(data, "lastError", t.last_error);
      data += ",\"lastScrape\":";
      if (t.last_scrape_ms == 0)
        data += "\"" + std::string(go::json::kGoZeroTime) + "\"";
      else
        go::json::append_quoted(data, go::json::go_time(t.last_scrape_ms));
      data += ",\"lastScrapeDuration\":" + seconds(t.last_duration_s);
      field(data, "health", t.health);
      field(data, "scrapeInterval", promql::format_duration_ms(t.interval_ms));
      field(data, "scrapeTimeout", promql::format_duration_ms(t.timeout_ms));
      data += '}';
    }
    data += ']';
  }
  if (dropped) {
    if (active) data += ',';
    data += "\"droppedTargets\":[";
    bool first = true;
    for (const auto& t : st.dropped) {
      if (!pool.empty() && t.job != pool) continue;
      if (!first) data += ',';
      first = false;
      data += "{\"discoveredLabels\":";
      labels_json(data, t.discovered_labels);
      data += '}';
    }
    data += ']';
  }
  // llmon's addition (Grafana and Prometheus clients ignore it): why
  // discovered candidates are not targets, and discovery failures.
  data += ",\"discoveryNotes\":[";
  for (size_t i = 0; i < st.discovery_notes.size(); ++i) {
    if (i) data += ',';
    go::json::append_quoted(data, st.discovery_notes[i]);
  }
  data += "],\"discoveryErrors\":[";
  for (size_t i = 0; i < st.discovery_errors.size(); ++i) {
    if (i) data += ',';
    go::json::append_quoted(data, st.discovery_errors[i]);
  }
  data += "]}";
  res.content_type = "application/json";
  res.body = success_envelope(data);
}

Expected<int64_t> limit_param(const Form& form) {
  if (!form.has("limit") || form.get("limit").empty()) return int64_t{-1};
  auto n = base::parse_i64(form.get("limit"));
  if (!n) return Status::error("limit must be a number");
  return *n;
}

void metadata_entry(std::string& out, const scrape::FamilyMetadata& md) {
  field(out, "type", md.type, false);
  field(out, "help", md.help);
  field(out, "unit", md.unit);
}

void target_metadata(const scrape::Manager* m, const http::Request& req, http::Response& res) {
  auto form = parse_form(req.method, req.header("content-type"), req.query, req.body);
  if (!form) return fail(res, form.error());
  auto limit = limit_param(*form);
  if (!limit) return fail(res, limit.error());
  std::vector<promql::LabelMatcher> matchers;
  if (form->has("match_target") && !form->get("match_target").empty()) {
    const std::string text(form->get("match_target"));
    auto parsed = promql::parse_selector(text);
    if (!parsed.ok()) return fail(res, parsed.error.to_string(text));
    const auto* vs = std::get_if<promql::VectorSelector>(&parsed.expr->node);
    if (!vs) return fail(res, "match_target: expected a label selector");
    for (const auto& mm : vs->matchers) {
      auto lm = promql::LabelMatcher::make(mm);
      if (!lm) return fail(res, lm.error());
      matchers.push_back(std::move(*lm));
    }
  }
  const std::string metric(form->get("metric"));
  scrape::ManagerStatus st = m ? m->status() : scrape::ManagerStatus{};
  std::string data = "[";
  int64_t n = 0;
  bool first = true;
  for (const auto& t : st.active) {
    bool ok = true;
    for (const auto& lm : matchers) {
      std::string_view v;
      for (const auto& l : t.labels)
        if (l.name == lm.matcher().name) v = l.value;
      if (!lm.matches(v)) ok = false;
    }
    if (!ok) continue;
    for (const auto& [name, md] : t.metadata) {
      if (!metric.empty() && name != metric) continue;
      if (*limit >= 0 && n >= *limit) break;
      ++n;
      if (!first) data += ',';
      first = false;
      data += "{\"target\":";
      labels_json(data, t.labels);
      field(data, "metric", name);
      data += ',';
      metadata_entry(data, md);
      data += '}';
    }
  }
  data += ']';
  res.content_type = "application/json";
  res.body = success_envelope(data);
}

}  // namespace

Status register_targets_routes(http::Server& server, const scrape::Manager* manager) {
  if (Status st = server.add_route("/api/v1/targets", {"GET"},
                                   [manager](const http::Request& q, http::Response& r) { targets(manager, q, r); });
      !st)
    return st;
  return server.add_route("/api/v1/targets/metadata", {"GET"},
                          [manager](const http::Request& q, http::Response& r) { target_metadata(manager, q, r); });
}

std::vector<QueryApiOptions::MetadataEntry> scraped_metadata(const scrape::Manager& manager) {
  std::vector<QueryApiOptions::MetadataEntry> out;
  for (const auto& t : manager.status().active)
    for (const auto& [name, md] : t.metadata) out.push_back({name, md.type, md.help, md.unit});
  return out;
}

}  // namespace llmon::api
