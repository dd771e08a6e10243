#include "api/events_route.h"

#include "api/json.h"
#include "api/params.h"
#include "base/strings.h"
#include "logwatch/event_journal.h"
#include "logwatch/event_json.h"

namespace llmon::api {

namespace {

constexpr size_t kMaxLimit = 10000;

void fail(http::Response& res, int status, promql::ErrorType type, const std::string& why) {
  res.status = status;
  res.content_type = "application/json";
  res.body = error_envelope(type, why);
}

}  // namespace

Status register_events_route(http::Server& server, std::string journal_dir) {
  return server.add_route(
      "/api/v1/events", {"GET"}, [dir = std::move(journal_dir)](const http::Request& req, http::Response& res) {
        auto pairs = parse_url_query(req.query);
        if (!pairs) return fail(res, 400, promql::ErrorType::kBadData, pairs.error());
        logwatch::EventQuery q;
        for (const auto& [k, v] : *pairs) {
          if (k == "start" || k == "end") {
            auto t = parse_time_ms(v);
            if (!t) return fail(res, 400, promql::ErrorType::kBadData, "invalid parameter \"" + k + "\": " + t.error());
            (k == "start" ? q.start_ms : q.end_ms) = *t;
          } else if (k == "rule") {
            q.rule = v;
          } else if (k == "source") {
            q.source = v;
          } else if (k == "severity") {
            logwatch::Severity sev;
            if (!v.empty() && !logwatch::parse_severity(v, sev))
              return fail(res, 400, promql::ErrorType::kBadData,
                          "invalid parameter \"severity\": \"" + v + "\" (info, warning, error, critical)");
            if (!v.empty()) q.min_severity = sev;
          } else if (k == "limit") {
            auto n = base::parse_i64(v);
            if (!n || *n <= 0)
              return fail(res, 400, promql::ErrorType::kBadData,
                          "invalid parameter \"limit\": \"" + v + "\" is not a positive integer");
            q.limit = std::min<size_t>(kMaxLimit, static_cast<size_t>(*n));
          }
        }
        if (q.end_ms < q.start_ms)
          return fail(res, 400, promql::ErrorType::kBadData, "end timestamp must not be before start time");
        auto events = logwatch::query_events(dir, q);
        if (!events) return fail(res, 503, promql::ErrorType::kUnavailable, events.error());
        std::string data = "{\"events\":[";
        for (size_t i = 0; i < events->size(); ++i) {
          if (i) data += ',';
          data += logwatch::encode_event((*events)[i], true);
        }
        data += "]}";
        res.content_type = "application/json";
        res.body = success_envelope(data);
      });
}

}  // namespace llmon::api
