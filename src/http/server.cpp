#include "http/server.h"

#include "base/strings.h"

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
    : opts_(std::move(opts)), page_(page), log_(log) {}

Server::~Server() { stop(); }

Status Server::start() {
  auto hp = split_host_port(opts_.listen_address);
  if (!hp) return hp.status();
  ListenerOptions lo;
  lo.host = hp->first;
  lo.port = hp->second;
  lo.max_connections = opts_.max_connections > 0 ? opts_.max_connections : 1;
  lo.limits.max_body_bytes = opts_.max_body_bytes;
  listener_ = std::make_unique<Listener>(lo, [this](const Request& req, Response& res) { handle(req, res); });
  Status s = listener_->start();
  if (!s) listener_.reset();
  return s;
}

void Server::stop() {
  if (listener_) listener_->stop();
}

void Server::handle(const Request& req, Response& res) {
  const bool known = req.path == opts_.telemetry_path || req.path == "/-/healthy" || req.path == "/-/ready" ||
                     req.path == "/";
  if (!known) {
    res.status = 404;
    res.body = "404 page not found\n";
    return;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    res.status = 405;
    res.headers.emplace_back("Allow", "GET, HEAD");
    res.body = "405 method not allowed\n";
    return;
  }
  if (req.path == opts_.telemetry_path) {
    auto format = exposition::negotiate(req.header("accept"));
    bool gz = accepts_gzip(std::string(req.header("accept-encoding")));
    auto body = page_.body(format, gz);
    if (!body) {
      res.status = 503;
      res.body = "no collection cycle has completed yet\n";
      return;
    }
    if (gz) res.headers.emplace_back("Content-Encoding", "gzip");
    res.headers.emplace_back("Vary", "Accept, Accept-Encoding");
    res.content_type = std::string(exposition::content_type(format));
    res.shared_body = std::move(body);
    return;
  }
  if (req.path == "/-/healthy") {
    res.body = "llmon is Healthy.\n";
    return;
  }
  if (req.path == "/-/ready") {
    if (page_.body(exposition::Format::kText004, false)) {
      res.body = "llmon is Ready.\n";
    } else {
      res.status = 503;
      res.body = "llmon is not ready: no collection cycle yet.\n";
    }
    return;
  }
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
