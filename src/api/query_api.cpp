// The query endpoints, dispatch and registration of the Prometheus HTTP API;
// the series/label/metadata endpoints are in query_api_catalog.cpp. Each
// endpoint checks its parameters in Prometheus's order (web/api/v1/api.go) so
// the first error reported is the one Prometheus reports.
#include "api/query_api.h"

#include <algorithm>

#include "api/errors.h"
#include "api/json.h"
#include "promql/parser.h"

namespace llmon::api {

namespace {

constexpr std::string_view kLabelPrefix = "/api/v1/label/";

// Go's ParseForm reads form-encoded bodies up to 10 MiB (maxFormSize), so a
// Prometheus client may POST a query that long. Larger bodies are refused
// with 413 before they are read (Prometheus ignores them and answers from
// the URL's parameters).
constexpr size_t kMaxFormBodyBytes = size_t{10} << 20;

promql::QueryError bad_data(std::string message) {
  return {promql::ErrorType::kBadData, std::move(message)};
}

// Prometheus's invalidParamError: `invalid parameter "time": ...`.
promql::QueryError invalid_param(std::string_view name, const std::string& message) {
  return bad_data("invalid parameter \"" + std::string(name) + "\": " + message);
}

// Per-query engine settings from `timeout` and `lookback_delta`. The
// `timeout` parameter only shortens the engine's own limit (Prometheus puts
// it on the request's context, under the engine's timeout).
std::optional<promql::QueryError> query_params(const api::Form& form, const promql::Engine& engine,
                                               promql::QueryParams& params) {
  if (std::string_view to = form.get("timeout"); !to.empty()) {
    auto ns = api::parse_duration_ns(to);
    if (!ns) return invalid_param("timeout", ns.error());
    auto ms = std::chrono::milliseconds(*ns / 1'000'000);
    params.timeout = std::min(ms, engine.options().timeout);
  }
  if (std::string_view lb = form.get("lookback_delta"); !lb.empty()) {
    auto ns = api::parse_duration_ns(lb);
    if (!ns) return bad_data("error parsing lookback delta duration: " + ns.error());
    // Prometheus: 0 (or less) keeps the engine's default.
    if (*ns / 1'000'000 > 0) params.lookback_delta_ms = *ns / 1'000'000;
  }
  return std::nullopt;
}

// Prometheus 3's `limit` on query results: the first `limit` series, and a warning.
void truncate(promql::Value& value, int64_t limit, std::vector<std::string>& warnings) {
  if (limit <= 0) return;
  auto cut = [&](auto& list) {
    if (list.size() > static_cast<size_t>(limit)) {
      list.resize(static_cast<size_t>(limit));
      warnings.emplace_back("results truncated due to limit");
    }
  };
  if (auto* v = std::get_if<promql::Vector>(&value)) cut(*v);
  if (auto* m = std::get_if<promql::Matrix>(&value)) cut(*m);
}

}  // namespace

QueryApi::Result QueryApi::failed(promql::QueryError error) {
  Result r;
  r.error = std::move(error);
  return r;
}

QueryApi::Result QueryApi::from_engine(promql::QueryResult res, int64_t limit) {
  Result r;
  r.warnings = std::move(res.warnings);
  r.infos = std::move(res.infos);
  if (!res.ok()) {
    r.error = std::move(res.error);  // with the warnings so far, as Prometheus
    return r;
  }
  truncate(res.value, limit, r.warnings);
  r.data = api::kSuccessPrefix;
  api::append_query_data(r.data, res.value);
  r.enveloped = true;
  return r;
}

QueryApi::QueryApi(storage::Storage* storage, promql::Engine* engine, SnapshotSource snapshots,
                   const base::Clock& clock, QueryApiOptions options)
    : storage_(storage), engine_(engine), snapshots_(std::move(snapshots)), clock_(clock), opts_(std::move(options)) {}

std::optional<QueryApi::Result> QueryApi::unavailable() const {
  if (storage_ && engine_) return std::nullopt;
  Result r;
  r.error = promql::QueryError{promql::ErrorType::kUnavailable, opts_.unavailable_reason};
  return r;
}

QueryApi::Result QueryApi::query(const api::Form& form) const {
  if (auto u = unavailable()) return *u;
  auto limit = api::parse_limit(form.get("limit"));
  if (!limit) return failed(invalid_param("limit", limit.error()));
  auto t = api::parse_time_param(form, "time", clock_.now_ms());
  if (!t) return failed(invalid_param("time", t.error()));
  promql::QueryParams params;
  if (auto e = query_params(form, *engine_, params)) return failed(*e);
  std::string_view text = form.get("query");
  auto parsed = promql::parse(text);
  if (!parsed.ok()) return failed(invalid_param("query", parsed.error.to_string(text)));

  return from_engine(engine_->instant(*parsed.expr, *t, params), *limit);
}

QueryApi::Result QueryApi::query_range(const api::Form& form) const {
  if (auto u = unavailable()) return *u;
  auto limit = api::parse_limit(form.get("limit"));
  if (!limit) return failed(invalid_param("limit", limit.error()));
  auto start = api::parse_time_ms(form.get("start"));
  if (!start) return failed(invalid_param("start", start.error()));
  auto end = api::parse_time_ms(form.get("end"));
  if (!end) return failed(invalid_param("end", end.error()));
  if (*end < *start) return failed(invalid_param("end", "end timestamp must not be before start time"));
  auto step_ns = api::parse_duration_ns(form.get("step"));
  if (!step_ns) return failed(invalid_param("step", step_ns.error()));
  // The engine works in milliseconds: a step under 1 ms is as unusable as 0.
  int64_t step_ms = *step_ns / 1'000'000;
  if (step_ms <= 0)
    return failed(invalid_param(
        "step", "zero or negative query resolution step widths are not accepted. Try a positive integer"));
  // end.Sub(start)/step > 11000, in Go's saturating nanoseconds.
  int64_t span_ms = *end - *start;
  int64_t span_ns = span_ms > INT64_MAX / 1'000'000 ? INT64_MAX : span_ms * 1'000'000;
  if (span_ns / *step_ns > 11000)
    return failed(
        bad_data("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution "
                 "(?step=XX)"));
  promql::QueryParams params;
  if (auto e = query_params(form, *engine_, params)) return failed(*e);
  std::string_view text = form.get("query");
  auto parsed = promql::parse(text);
  // Prometheus reports a range query's parse error without naming the parameter.
  if (!parsed.ok()) return failed(bad_data(parsed.error.to_string(text)));

  return from_engine(engine_->range(*parsed.expr, *start, *end, step_ms, params), *limit);
}

QueryApi::Result QueryApi::buildinfo() const {
  // Grafana reads `version` only. No `features` field: Grafana takes its
  // presence for Mimir.
  Result r;
  r.data = "{\"version\":";
  api::append_json_string(r.data, opts_.version);
  r.data += R"(,"revision":"unknown","branch":"unknown","buildUser":"unknown","buildDate":"unknown",)";
  r.data += R"json("goVersion":"none (llmon is written in C++)"})json";
  return r;
}

QueryApi::Result QueryApi::flags() const {
  Result r;
  r.data = "{";
  if (opts_.flags) {
    for (const auto& [name, value] : opts_.flags()) {
      if (r.data.size() > 1) r.data += ',';
      api::append_json_string(r.data, name);
      r.data += ':';
      api::append_json_string(r.data, value);
    }
  }
  r.data += '}';
  return r;
}

QueryApi::Result QueryApi::format_query(const api::Form& form) const {
  Result r;
  std::string_view text = form.get("query");
  auto parsed = promql::parse(text);
  if (!parsed.ok()) return failed(invalid_param("query", parsed.error.to_string(text)));
  api::append_json_string(r.data, promql::pretty(*parsed.expr));
  return r;
}

QueryApi::Answer QueryApi::answer(std::string_view path, const api::Form& form) const {
  Result r;
  if (path == "/api/v1/query") {
    r = query(form);
  } else if (path == "/api/v1/query_range") {
    r = query_range(form);
  } else if (path == "/api/v1/series") {
    r = series(form);
  } else if (path == "/api/v1/labels") {
    r = labels(form);
  } else if (path == "/api/v1/metadata") {
    r = metadata(form);
  } else if (path == "/api/v1/status/buildinfo") {
    r = buildinfo();
  } else if (path == "/api/v1/status/flags") {
    r = flags();
  } else if (path == "/api/v1/format_query") {
    r = format_query(form);
  } else if (path.substr(0, kLabelPrefix.size()) == kLabelPrefix && path.size() > kLabelPrefix.size() + 7 &&
             path.substr(path.size() - 7) == "/values" &&
             path.substr(kLabelPrefix.size(), path.size() - kLabelPrefix.size() - 7).find('/') ==
                 std::string_view::npos) {
    r = label_values(path.substr(kLabelPrefix.size(), path.size() - kLabelPrefix.size() - 7), form);
  } else {
    return Answer{404, ""};
  }
  if (r.error) {
    return Answer{http_status(r.error->type),
                  api::error_envelope(r.error->type, r.error->message, r.warnings, r.infos)};
  }
  if (r.enveloped) {  // a query's answer, built in place (it may be megabytes)
    api::finish_success_envelope(r.data, r.warnings, r.infos);
    return Answer{200, std::move(r.data)};
  }
  return Answer{200, api::success_envelope(r.data, r.warnings, r.infos)};
}

void QueryApi::handle(const http::Request& req, http::Response& res) const {
  auto form = api::parse_form(req.method, req.header("content-type"), req.query, req.body);
  Answer a;
  if (!form) {
    a = Answer{400, api::error_envelope(promql::ErrorType::kBadData, form.error())};
  } else {
    a = answer(req.path, *form);
  }
  if (a.status == 404 && a.body.empty()) {  // /api/v1/label/<something that is not name/values>
    res.status = 404;
    res.body = "404 page not found\n";
    return;
  }
  res.status = a.status;
  res.content_type = "application/json";
  res.body = std::move(a.body);
}

Status register_query_api(http::Server& server, std::shared_ptr<QueryApi> api) {
  const std::vector<std::string> get_post = {"GET", "POST"};
  const std::vector<std::string> get = {"GET"};
  // Methods as Prometheus registers them (web/api/v1/api.go Register).
  const std::pair<const char*, const std::vector<std::string>*> routes[] = {
      {"/api/v1/query", &get_post},       {"/api/v1/query_range", &get_post},  {"/api/v1/series", &get_post},
      {"/api/v1/labels", &get_post},      {"/api/v1/label/*", &get},           {"/api/v1/metadata", &get},
      {"/api/v1/status/buildinfo", &get}, {"/api/v1/format_query", &get_post}, {"/api/v1/status/flags", &get},
  };
  for (const auto& [path, methods] : routes) {
    Status s = server.add_route(
        path, *methods, [api](const http::Request& req, http::Response& res) { api->handle(req, res); },
        kMaxFormBodyBytes);
    if (!s) return s;
  }
  return Status::ok();
}

}  // namespace llmon::api
