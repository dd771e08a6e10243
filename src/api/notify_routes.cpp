// HTTP routes over the notification pipeline (notify_routes.h).
#include "api/notify_routes.h"

#include <nlohmann/json.hpp>

#include "go/json.h"
#include "notify/silences/silence_json.h"

namespace llmon::api {

namespace {

void json_answer(http::Response& res, int status, std::string body) {
  res.status = status;
  res.content_type = "application/json";
  res.body = std::move(body);
  res.body += '\n';
}

}  // namespace

Status register_notify_routes(http::Server& server, notify::Pipeline& pipeline, const base::Clock& clock) {
  Status s = server.add_route(
      "/api/v2/silences", {"GET", "POST"}, [&pipeline, &clock](const http::Request& req, http::Response& res) {
        if (req.method == "POST") {
          notify::SilenceApiReply r = notify::post_silence_api(pipeline.silences(), req.body, clock.now_ms());
          return json_answer(res, r.status, r.body);
        }
        json_answer(res, 200, notify::render_gettable_silences(pipeline.silences().list(), clock.now_ms()));
      });
  if (!s) return s;
  s = server.add_route("/api/v2/silence/*", {"GET", "DELETE"},
                       [&pipeline, &clock](const http::Request& req, http::Response& res) {
                         std::string id = req.path.substr(std::string_view("/api/v2/silence/").size());
                         if (req.method == "DELETE") {
                           notify::SilenceApiReply r = notify::delete_silence_api(pipeline.silences(), id);
                           return json_answer(res, r.status, r.body);
                         }
                         auto sil = pipeline.silences().get(id);
                         if (!sil) return json_answer(res, 404, go::json::quoted("silence not found"));
                         json_answer(res, 200, notify::render_gettable_silence(*sil, clock.now_ms()));
                       });
  if (!s) return s;
  return server.add_route(
      "/api/v1/notifications", {"GET"}, [&pipeline, &clock](const http::Request&, http::Response& res) {
        using nlohmann::json;
        json data;
        data["targets"] = json::array();
        for (const auto& t : pipeline.delivery_metrics().targets)
          data["targets"].push_back({{"target", t.target},
                                     {"registered", t.registered},
                                     {"queued", t.queued_total},
                                     {"delivered", t.delivered_total},
                                     {"retried", t.retried_total},
                                     {"failed", t.failed_total},
                                     {"dropped", t.dropped_total},
                                     {"queueLength", t.queue_length},
                                     {"oldestAgeSeconds", static_cast<double>(t.oldest_age_ms) / 1000.0}});
        data["recentFailures"] = json::array();
        for (const auto& f : pipeline.recent_failures())
          data["recentFailures"].push_back({{"target", f.target},
                                            {"kind", f.kind},
                                            {"attempt", f.attempt},
                                            {"time", go::json::go_time(f.time_ms)},
                                            {"error", f.error},
                                            {"permanent", f.permanent}});
        json_answer(res, 200, json{{"status", "success"}, {"data", data}}.dump());
      });
}

}  // namespace llmon::api
