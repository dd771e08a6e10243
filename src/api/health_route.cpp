#include "api/health_route.h"

#include "api/json.h"
#include "api/params.h"
#include "health/health_json.h"

namespace llmon::api {

namespace {

void fail(http::Response& res, int status, promql::ErrorType type, const std::string& why) {
  res.status = status;
  res.content_type = "application/json";
  res.body = error_envelope(type, why);
}

void answer(http::Response& res, const health::HealthTracker& t) {
  res.content_type = "application/json";
  res.body = success_envelope(health::health_json(t.snapshot()));
}

}  // namespace

Status register_health_routes(http::Server& server, std::shared_ptr<health::HealthTracker> tracker) {
  if (Status st = server.add_route("/api/v1/health", {"GET"},
                                   [tracker](const http::Request&, http::Response& res) { answer(res, *tracker); });
      !st)
    return st;
  return server.add_route(
      "/api/v1/health/set-healthy", {"POST"},
      [tracker](const http::Request& req, http::Response& res) {
        std::string gpu;
        for (const std::string* text : {&req.query, &req.body}) {
          auto pairs = parse_url_query(*text);
          if (!pairs) return fail(res, 400, promql::ErrorType::kBadData, pairs.error());
          for (const auto& [k, v] : *pairs)
            if (k == "gpu") gpu = v;
        }
        if (gpu.empty())
          return fail(res, 400, promql::ErrorType::kBadData,
                      "missing parameter \"gpu\" (an index, a UUID or a PCI address)");
        if (Status st = tracker->set_healthy(gpu); !st) {
          if (st.is_no_data()) return fail(res, 400, promql::ErrorType::kBadData, st.message());
          return fail(res, 503, promql::ErrorType::kUnavailable, "the override holds until restart: " + st.message());
        }
        answer(res, *tracker);
      },
      4096);
}

}  // namespace llmon::api
