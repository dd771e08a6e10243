// The agent's HTTP endpoints over http::Listener: /metrics (text 0.0.4 or
// OpenMetrics by Accept, gzip by Accept-Encoding), /-/healthy, /-/ready and a
// landing page at / (unless a module registers "/": the dashboard), plus routes other modules register with add_route()
// (the import API, the query API): the http module knows them only as
// std::function handlers. Routing is by exact path, then by the longest
// prefix route (a path registered with a trailing '*', e.g.
// "/api/v1/label/*"); a known path with a method it does not take answers 405
// with an Allow header; unknown paths 404.
// Handlers only adapt: the page comes from MetricsPage.
// The route table is fixed once start() is called (add_route before, from one
// thread); handlers then run on connection threads and must be thread-safe.
// start() binds and serves on background threads; stop() is safe from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "http/listener.h"
#include "http/metrics_page.h"

namespace llmon::http {

// Runs around every request (authentication, authorisation, extra headers;
// websec::WebSecurity is the one implementation). Called from connection
// threads: must be thread-safe.
class RequestGuard {
 public:
  virtual ~RequestGuard() = default;
  // Before routing; false: `res` holds the refusal (401, 403) and no route runs.
  virtual bool admit(const Request& req, Response& res) = 0;
  // After the answer is made, refusals included: headers every answer carries.
  virtual void finish(Response& res) = 0;
};

struct ServerOptions {
  std::string listen_address = "127.0.0.1:8747";  // host:port; [v6]:port; port 0 = pick one
  std::string telemetry_path = "/metrics";
  int max_connections = 40;         // one thread each; more get 503 (--web.max-requests)
  size_t max_body_bytes = 1 << 20;  // for routes that set no limit of their own
  std::string version;
  std::shared_ptr<Transport> transport;  // null: plain HTTP
  std::shared_ptr<RequestGuard> guard;   // null: every request is served
};

class Server {
 public:
  using Handler = std::function<void(const Request&, Response&)>;

  Server(ServerOptions opts, MetricsPage& page, base::Logger& log);
  ~Server();

  // Serves `path` (exact match, no query) for `methods` (upper case; "GET"
  // also answers HEAD, with the body left off). A path ending in '*' serves
  // every path starting with what precedes the '*' that has no exact route
  // (the longest such prefix wins); the handler reads Request::path.
  // max_body_bytes: the largest request body this path accepts, 0 =
  // ServerOptions::max_body_bytes; checked against Content-Length before the
  // body is read (413 beyond it). Errors:
  // called after start(), path not starting with '/', path already served
  // (built-ins included), no methods.
  Status add_route(std::string path, std::vector<std::string> methods, Handler handler, size_t max_body_bytes = 0);

  Status start();
  void stop();
  int port() const { return listener_ ? listener_->port() : 0; }

 private:
  struct Route {
    std::vector<std::string> methods;
    std::string allow;  // "GET, HEAD" for the 405 answer
    Handler handler;
    size_t max_body_bytes = 0;
  };
  void handle(const Request& req, Response& res);
  void route(const Request& req, Response& res);
  const Route* find_route(std::string_view path) const;
  size_t body_limit(std::string_view path) const;
  void metrics(const Request& req, Response& res);
  void landing(Response& res);
  ServerOptions opts_;
  MetricsPage& page_;
  base::Logger& log_;
  std::map<std::string, Route, std::less<>> routes_;
  std::unique_ptr<Listener> listener_;
};

// Splits "host:port" / "[::1]:port" / ":port". Error names the bad address.
Expected<std::pair<std::string, int>> split_host_port(const std::string& address);

}  // namespace llmon::http
