// The agent's HTTP listener (cpp-httplib underneath): /metrics (text 0.0.4 or
// OpenMetrics by Accept, gzip by Accept-Encoding), /-/healthy, /-/ready and a
// landing page at /. Handlers only adapt: the page comes from MetricsPage.
// start() binds and serves on its own threads; stop() is safe from any thread.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "base/log.h"
#include "base/status.h"
#include "http/metrics_page.h"

namespace httplib {
class Server;
}

namespace llmon::http {

struct ServerOptions {
  std::string listen_address = "127.0.0.1:8747";  // host:port; [v6]:port; port 0 = pick one
  std::string telemetry_path = "/metrics";
  int worker_threads = 8;
  size_t max_body_bytes = 1 << 20;
  std::string version;
};

class Server {
 public:
  Server(ServerOptions opts, MetricsPage& page, base::Logger& log);
  ~Server();
  Status start();  // binds, then serves in a background thread
  void stop();
  int port() const { return port_; }

 private:
  void routes();
  ServerOptions opts_;
  MetricsPage& page_;
  base::Logger& log_;
  std::unique_ptr<httplib::Server> srv_;
  std::thread thread_;
  int port_ = 0;
};

// Splits "host:port" / "[::1]:port" / ":port". Error names the bad address.
Expected<std::pair<std::string, int>> split_host_port(const std::string& address);

}  // namespace llmon::http
