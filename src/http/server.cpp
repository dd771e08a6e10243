#include "http/server.h"

#include <httplib.h>

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
    : opts_(std::move(opts)), page_(page), log_(log), srv_(std::make_unique<httplib::Server>()) {}

Server::~Server() { stop(); }

void Server::routes() {
  auto& s = *srv_;
  const int threads = opts_.worker_threads > 0 ? opts_.worker_threads : 1;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_payload_max_length(opts_.max_body_bytes);
  s.set_keep_alive_max_count(1000);
  s.set_read_timeout(10, 0);
  s.set_write_timeout(10, 0);

  s.Get(opts_.telemetry_path, [this](const httplib::Request& req, httplib::Response& res) {
    auto format = exposition::negotiate(req.get_header_value("Accept"));
    bool gz = accepts_gzip(req.get_header_value("Accept-Encoding"));
    auto body = page_.body(format, gz);
    if (!body) {
      res.status = 503;
      res.set_content("no collection cycle has completed yet\n", "text/plain; charset=utf-8");
      return;
    }
    if (gz) res.set_header("Content-Encoding", "gzip");
    res.set_header("Vary", "Accept, Accept-Encoding");
    res.set_content(*body, std::string(exposition::content_type(format)).c_str());
  });
  s.Get("/-/healthy", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("llmon is Healthy.\n", "text/plain; charset=utf-8");
  });
  s.Get("/-/ready", [this](const httplib::Request&, httplib::Response& res) {
    if (page_.body(exposition::Format::kText004, false)) {
      res.set_content("llmon is Ready.\n", "text/plain; charset=utf-8");
    } else {
      res.status = 503;
      res.set_content("llmon is not ready: no collection cycle yet.\n", "text/plain; charset=utf-8");
    }
  });
  s.Get("/", [this](const httplib::Request&, httplib::Response& res) {
    std::string html =
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
    res.set_content(html, "text/html; charset=utf-8");
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* reason = res.status == 404   ? "Not Found"
                         : res.status == 405 ? "Method Not Allowed"
                         : res.status == 413 ? "Payload Too Large"
                         : res.status == 414 ? "URI Too Long"
                         : res.status == 400 ? "Bad Request"
                                             : "Error";
    std::string msg = std::to_string(res.status) + " " + reason + "\n";
    res.set_content(msg, "text/plain; charset=utf-8");
  });
  s.set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    log_.error("http handler failed", {{"path", req.path}, {"err", what}});
    res.status = 500;
    res.set_content("internal error\n", "text/plain; charset=utf-8");
  });
}

Status Server::start() {
  auto hp = split_host_port(opts_.listen_address);
  if (!hp) return hp.status();
  routes();
  const auto& [host, port] = *hp;
  if (port == 0) {
    port_ = srv_->bind_to_any_port(host.c_str());
    if (port_ <= 0) return Status::error("cannot listen on " + opts_.listen_address);
  } else {
    if (!srv_->bind_to_port(host.c_str(), port))
      return Status::error("cannot listen on " + opts_.listen_address + " (address in use or not local?)");
    port_ = port;
  }
  thread_ = std::thread([this] { srv_->listen_after_bind(); });
  return Status::ok();
}

void Server::stop() {
  if (srv_) srv_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace llmon::http
