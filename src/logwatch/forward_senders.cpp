#include "logwatch/forward_senders.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "base/strings.h"
#include "base/unique_fd.h"
#include "net/http_client.h"
#include "net/tcp_connect.h"

namespace llmon::logwatch {

Expected<SyslogTarget> parse_syslog_target(std::string_view text) {
  std::string_view rest = text;
  if (!rest.starts_with("tcp://"))
    return Status::error("syslog target \"" + std::string(text) + "\": expected tcp://HOST:PORT");
  rest.remove_prefix(6);
  SyslogTarget t;
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return Status::error("syslog target \"" + std::string(text) + "\": no port");
  std::string_view host = rest.substr(0, colon);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  auto port = base::parse_i64(rest.substr(colon + 1));
  if (!port || *port <= 0 || *port > 65535)
    return Status::error("syslog target \"" + std::string(text) + "\": bad port");
  t.host = std::string(host);
  t.port = static_cast<uint16_t>(*port);
  return t;
}

namespace {

struct SyslogConn {
  SyslogTarget target;
  SyslogEventOptions opt;
  int timeout_ms;
  base::UniqueFd fd;

  // The peer closed (or reset) the connection: a read would return 0 or fail.
  bool peer_gone() const {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLERR | POLLHUP)) return true;
    char c;
    ssize_t n = ::recv(fd.get(), &c, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

  SendOutcome send(const std::vector<Event>& batch) {
    if (fd.get() >= 0 && peer_gone()) fd.reset();
    if (fd.get() < 0) {
      auto c = net::connect_tcp(target.host, target.port, net::deadline_after_ms(timeout_ms));
      if (!c) return {SendResult::kRetry, "connect " + target.host + ":" + std::to_string(target.port) + " failed"};
      fd = std::move(*c);
      timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
      ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    std::string out;
    for (const Event& e : batch) out += octet_counted(format_rfc5424(syslog_message(e, opt)));
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::send(fd.get(), out.data() + done, out.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::string why = n < 0 ? std::strerror(errno) : "nothing written";
        fd.reset();
        return {SendResult::kRetry, "write to " + target.host + ":" + std::to_string(target.port) + ": " + why};
      }
      done += static_cast<size_t>(n);
    }
    return {};
  }
};

}  // namespace

SendFn syslog_sender(SyslogTarget target, SyslogEventOptions o, int timeout_ms) {
  auto conn = std::make_shared<SyslogConn>();
  conn->target = std::move(target);
  conn->opt = std::move(o);
  conn->timeout_ms = timeout_ms;
  return [conn](const std::vector<Event>& batch) { return conn->send(batch); };
}

bool parse_loki_format(std::string_view text, LokiFormat& out) {
  if (text == "protobuf") return out = LokiFormat::kProtobuf, true;
  if (text == "json") return out = LokiFormat::kJson, true;
  return false;
}

Expected<SendFn> loki_sender(std::string push_url, LokiLabelOptions o, LokiFormat format, int timeout_ms) {
  auto url = net::http::parse_url(push_url);
  if (!url) return Status::error("Loki URL \"" + push_url + "\": " + url.error());
  net::http::ClientOptions co;
  co.timeout_ms = timeout_ms;
  co.max_response_body_bytes = 1 << 20;
  auto client = std::make_shared<net::http::Client>(co);
  return SendFn([client, url = *url, o = std::move(o), format](const std::vector<Event>& batch) -> SendOutcome {
    std::vector<LokiStream> streams = loki_streams(batch, o);
    const bool pb = format == LokiFormat::kProtobuf;
    std::string body = pb ? snappy_block(loki_protobuf_body(streams)) : loki_json_body(streams);
    auto r = client->request("POST", url, pb ? "application/x-protobuf" : "application/json", body);
    if (!r) return {SendResult::kRetry, r.error()};
    if (r->status >= 200 && r->status < 300) return {};
    std::string why = "Loki answered " + std::to_string(r->status) + ": " + r->body.substr(0, 200);
    if (r->status == 429 || r->status >= 500) return {SendResult::kRetry, why};
    return {SendResult::kRejected, why};
  });
}

}  // namespace llmon::logwatch
