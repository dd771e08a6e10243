#include "api/diagnosis_route.h"

#include "api/json.h"
#include "api/params.h"
#include "base/strings.h"
#include "diagnose/anomaly_cite.h"
#include "diagnose/diagnose.h"
#include "diagnose/report.h"

namespace llmon::api {

namespace {

void bad(http::Response& res, const std::string& why) {
  res.status = 400;
  res.content_type = "application/json";
  res.body = error_envelope(promql::ErrorType::kBadData, why);
}

}  // namespace

Status register_diagnosis_route(http::Server& server, promql::Engine& engine, const base::Clock& clock,
                                DiagnosisRouteOptions options) {
  return server.add_route(
      "/api/v1/diagnosis", {"GET"}, [&engine, &clock, options](const http::Request& req, http::Response& res) {
        auto pairs = parse_url_query(req.query);
        if (!pairs) return bad(res, pairs.error());
        diagnose::Options o;
        o.t_ms = clock.now_ms();
        o.window_ms = options.default_window_ms;
        if (options.default_selector) o.selector = options.default_selector();
        o.gpu_price = options.gpu_price;
        bool text = false;
        for (const auto& [k, v] : *pairs) {
          if (k == "time") {
            auto t = parse_time_ms(v);
            if (!t) return bad(res, "invalid parameter \"time\": " + t.error());
            o.t_ms = *t;
          } else if (k == "window") {
            auto w = base::parse_duration_ms(v);
            if (!w || *w <= 0)
              return bad(res, "invalid parameter \"window\": \"" + v + "\" is not a duration (15m, 1h)");
            o.window_ms = *w;
          } else if (k == "selector") {
            o.selector = v;
          } else if (k == "format") {
            if (v != "json" && v != "text") return bad(res, "invalid parameter \"format\": json or text");
            text = v == "text";
          }
        }
        diagnose::EngineSource source(engine);
        diagnose::Diagnosis d = diagnose::run(source, o);
        diagnose::cite_anomalies(d, engine);
        if (text) {
          res.body = diagnose::format_text(d);
          return;
        }
        res.content_type = "application/json";
        std::string data = diagnose::format_json(d);
        while (!data.empty() && data.back() == '\n') data.pop_back();
        res.body = success_envelope(data);
      });
}

}  // namespace llmon::api
