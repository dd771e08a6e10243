// The agent's HTTP endpoints over http::Listener: /metrics (text 0.0.4 or
// OpenMetrics by Accept, gzip by Accept-Encoding), /-/healthy, /-/ready and a
// landing page at /. Handlers only adapt: the page comes from MetricsPage.
// GET and HEAD only (405 otherwise); unknown paths 404.
// start() binds and serves on background threads; stop() is safe from any thread.
#pragma once

#include <memory>
#include <string>

#include "base/log.h"
#include "base/status.h"
#include "http/listener.h"
#include "http/metrics_page.h"

namespace llmon::http {

struct ServerOptions {
  std::string listen_address = "127.0.0.1:8747";  // host:port; [v6]:port; port 0 = pick one
  std::string telemetry_path = "/metrics";
  int max_connections = 40;  // one thread each; more get 503 (--web.max-requests)
  size_t max_body_bytes = 1 << 20;
  std::string version;
};

class Server {
 public:
  Server(ServerOptions opts, MetricsPage& page, base::Logger& log);
  ~Server();
  Status start();
  void stop();
  int port() const { return listener_ ? listener_->port() : 0; }

 private:
  void handle(const Request& req, Response& res);
  ServerOptions opts_;
  MetricsPage& page_;
  base::Logger& log_;
  std::unique_ptr<Listener> listener_;
};

// Splits "host:port" / "[::1]:port" / ":port". Error names the bad address.
Expected<std::pair<std::string, int>> split_host_port(const std::string& address);

}  // namespace llmon::http
