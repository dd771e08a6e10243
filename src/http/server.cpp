#include "http/server.h"

#include <algorithm>

#include "base/strings.h"
#include "http/query.h"

namespace llmon::http {

Expected<std::pair<std::string, int>> split_host_port(const std::string& address) {
  std::string host;
  std::string port_str;
  if (!address.empty() && address[0] == '[') {
    auto close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':')
      return Status::error("invalid listen address \"" + address + "\": expected [host]:port");
    host = address.substr(1, close - 1);
    port_str = address.substr(close + 2);
  } else {
    auto colon = address.rfind(':');
    if (colon == std::string::npos) return Status::error("invalid listen address \"" + address + "\": missing port");
    host = address.substr(0, colon);
    port_str = address.substr(colon + 1);
  }
  auto port = base::parse_i64(port_str);
  if (!port || *port < 0 || *port > 65535)
    return Status::error("invalid listen address \"" + address + "\": bad port \"" + port_str + "\"");
  if (host.empty()) host = "0.0.0.0";
  return std::make_pair(host, static_cast<int>(*port));
}

Server::Server(ServerOptions opts, MetricsPage& page, base::Logger& log)
    : opts_(std::move(opts)), page_(page), log_(log) {
  // The built-in pages are routes like any other (a telemetry path equal to a
  // built-in one wins, as it always did).
  const std::vector<std::string> get = {"GET"};
  (void)add_route(opts_.telemetry_path, get, [this](const Request& req, Response& res) { metrics(req, res); });
  (void)add_route("/-/healthy", get, [](const Request&, Response& res) { res.body = "llmon is Healthy.\n"; });
  (void)add_route("/-/ready", get, [this](const Request&, Response& res) {
    if (page_.body(exposition::Format::kText004, false)) {
      res.body = "llmon is Ready.\n";
    } else {
      res.status = 503;
      res.body = "llmon is not ready: no collection cycle yet.\n";
    }
  });
}

Server::~Server() { stop(); }

Status Server::add_route(std::string path, std::vector<std::string> methods, Handler handler, size_t max_body_bytes) {
  if (listener_) return Status::error("http: route " + path + " added after the server started");
  if (path.empty() || path[0] != '/') return Status::error("http: route \"" + path + "\" must start with /");
  if (methods.empty()) return Status::error("http: route " + path + " has no methods");
  if (!handler) return Status::error("http: route " + path + " has no handler");
  if (routes_.count(path)) return Status::error("http: route " + path + " is already served");
  Route r;
  auto add = [&r](const std::string& m) {
    if (std::find(r.methods.begin(), r.methods.end(), m) == r.methods.end()) r.methods.push_back(m);
  };
  for (const std::string& m : methods) {
    add(m);
    if (m == "GET") add("HEAD");
  }
  for (const std::string& m : r.methods) r.allow += (r.allow.empty() ? "" : ", ") + m;
  r.handler = std::move(handler);
  r.max_body_bytes = max_body_bytes;
  routes_.emplace(std::move(path), std::move(r));
  return Status::ok();
}

const Server::Route* Server::find_route(std::string_view path) const {
  if (auto it = routes_.find(path); it != routes_.end()) return &it->second;
  const Route* best = nullptr;
  size_t best_len = 0;
  for (const auto& [key, route] : routes_) {
    if (key.empty() || key.back() != '*') continue;
    std::string_view prefix(key.data(), key.size() - 1);
    if (prefix.size() >= best_len && path.substr(0, prefix.size()) == prefix) {
      best = &route;
      best_len = prefix.size();
    }
  }
  return best;
}

size_t Server::body_limit(std::string_view path) const {
  const Route* r = find_route(path);
  return r && r->max_body_bytes > 0 ? r->max_body_bytes : opts_.max_body_bytes;
}

Status Server::start() {
  // The landing page, unless a module serves "/" (the dashboard does).
  if (!routes_.count("/")) (void)add_route("/", {"GET"}, [this](const Request&, Response& res) { landing(res); });
  auto hp = split_host_port(opts_.listen_address);
  if (!hp) return hp.status();
  ListenerOptions lo;
  lo.host = hp->first;
  lo.port = hp->second;
  lo.max_connections = opts_.max_connections > 0 ? opts_.max_connections : 1;
  lo.limits.max_body_bytes = opts_.max_body_bytes;
  // routes_ is read-only from here on, so connection threads may read it.
  lo.transport = opts_.transport;
  lo.body_limit = [this](std::string_view path) { return body_limit(path); };
  listener_ = std::make_unique<Listener>(lo, [this](const Request& req, Response& res) { handle(req, res); });
  Status s = listener_->start();
  if (!s) listener_.reset();
  return s;
}

void Server::stop() {
  if (listener_) listener_->stop();
}

void Server::handle(const Request& req, Response& res) {
  if (!opts_.guard) return route(req, res);
  if (opts_.guard->admit(req, res)) route(req, res);
  opts_.guard->finish(res);
}

void Server::route(const Request& req, Response& res) {
  const Route* found = find_route(req.path);
  if (!found) {
    res.status = 404;
    res.body = "404 page not found\n";
    return;
  }
  const Route& r = *found;
  if (std::find(r.methods.begin(), r.methods.end(), req.method) == r.methods.end()) {
    res.status = 405;
    res.headers.emplace_back("Allow", r.allow);
    res.body = "405 method not allowed\n";
    return;
  }
  r.handler(req, res);
}

void Server::metrics(const Request& req, Response& res) {
  auto format = exposition::negotiate(req.header("accept"));
  bool gz = accepts_gzip(std::string(req.header("accept-encoding")));
  CollectorFilter filter;
  if (!req.query.empty()) {
    filter.collect = query_values(req.query, "collect[]");
    filter.exclude = query_values(req.query, "exclude[]");
  }
  FilteredPage page = page_.filtered_body(format, gz, filter);
  if (!page.error.empty()) {
    res.status = 400;
    res.body = std::move(page.error);
    return;
  }
  auto body = std::move(page.body);
  if (!body) {
    res.status = 503;
    res.body = "no collection cycle has completed yet\n";
    return;
  }
  if (gz) res.headers.emplace_back("Content-Encoding", "gzip");
  res.headers.emplace_back("Vary", "Accept, Accept-Encoding");
  res.content_type = std::string(exposition::content_type(format));
  res.shared_body = std::move(body);
}

void Server::landing(Response& res) {
  res.content_type = "text/html; charset=utf-8";
  res.body =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>llmon</title></head><body>"
      "<h1>llmon</h1><p>Monitoring agent for LLM training and inference machines. Version " +
      opts_.version +
      ".</p><ul>"
      "<li><a href=\"" +
      opts_.telemetry_path + "\">" + opts_.telemetry_path +
      "</a> metrics (Prometheus text 0.0.4 or OpenMetrics 1.0)</li>"
      "<li><a href=\"/-/healthy\">/-/healthy</a></li>"
      "<li><a href=\"/-/ready\">/-/ready</a></li>"
      "</ul></body></html>\n";
}

}  // namespace llmon::http
