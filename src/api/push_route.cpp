#include "api/push_route.h"

#include <string>

#include "base/strings.h"
#include "ingest/importer.h"

namespace llmon::api {

Status register_push_route(http::Server& server, scrape::PushIngest& push, PushRouteOptions opts) {
  auto handler = [&push, opts](const http::Request& req, http::Response& res) {
    std::string_view body = req.body;
    std::string decoded;
    if (base::iequals(base::trim(req.header("content-encoding")), "gzip")) {
      auto d = ingest::gunzip(req.body, opts.max_decoded_bytes);
      if (!d) {
        push.count(400);
        res.status = 400;
        res.body = "failed to decode the gzip body: " + d.error() + "\n";
        return;
      }
      decoded = std::move(*d);
      body = decoded;
    }
    scrape::PushReply r = push.handle(req.method, req.path, body, req.header("content-type"));
    res.status = r.status;
    res.body = std::move(r.body);
    if (!r.allow.empty()) res.headers.emplace_back("Allow", r.allow);
    if (req.method == "HEAD") res.head_only = true;
  };
  // GET is routed too so that it gets the Pushgateway's 405 and Allow.
  return server.add_route("/metrics/*", {"DELETE", "GET", "OPTIONS", "POST", "PUT"}, std::move(handler),
                          opts.max_body_bytes);
}

}  // namespace llmon::api
