#include "http/listener.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "http/transport.h"

namespace llmon::http {
namespace {

int64_t now_ms() {
  return steady_now_ms();
}

bool wait_readable(int fd, int wake_fd, int64_t deadline_ms) {
  return wait_fd(fd, wake_fd, deadline_ms);
}

bool send_all(int fd, const std::string& head, const std::string* body) {
  PlainTransport plain;
  return plain.open(fd, -1, 0)->write(head, body);
}

void send_error(int fd, int status, const std::string& why) {
  Response res;
  res.status = status;
  res.body = std::to_string(status) + " " + std::string(reason_phrase(status)) + ": " + why + "\n";
  send_all(fd, response_head(res, false), &res.body);
}

// After an error answer to a request that may still be arriving: close our
// side for writing and read (and drop) what the client still sends, for at
// most kLingerMs, so closing does not reset the connection before the client
// has read the answer (Go's closeWriteAndWait waits 500 ms likewise).
constexpr int64_t kLingerMs = 500;
void linger_close(int fd, int wake_fd) {
  ::shutdown(fd, SHUT_WR);
  const int64_t deadline = now_ms() + kLingerMs;
  char sink[16384];
  while (wait_readable(fd, wake_fd, deadline)) {
    ssize_t n = ::recv(fd, sink, sizeof sink, 0);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

// recv() size while the head is coming, or a body of unknown remaining length.
constexpr size_t kReadChunk = 64 * 1024;
// A keep-alive connection's buffer above this gives its memory back between requests.
constexpr size_t kKeepCapacity = 256 * 1024;

}  // namespace

Listener::Listener(ListenerOptions opts, Handler handler)
    : opts_(std::move(opts)),
      handler_(std::move(handler)),
      transport_(opts_.transport ? opts_.transport : std::make_shared<PlainTransport>()) {}

Listener::~Listener() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status Listener::start() {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status::error(std::string("eventfd: ") + std::strerror(errno));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string port = std::to_string(opts_.port);
  const char* host = opts_.host.empty() ? nullptr : opts_.host.c_str();
  int rc = ::getaddrinfo(host, port.c_str(), &hints, &res);
  if (rc != 0) return Status::error("cannot resolve listen address " + opts_.host + ": " + gai_strerror(rc));
  std::string err = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      listen_fd_ = fd;
      break;
    }
    err = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (listen_fd_ < 0) return Status::error("cannot listen on " + opts_.host + ":" + port + ": " + err);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
  port_ = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                         : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  accept_thread_ = std::thread([this] { accept_loop(); });
  return Status::ok();
}

void Listener::reap_finished() {
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (it->done.load()) {
      it->thread.join();
      ::close(it->fd);
      it = conns_.erase(it);
    } else {
      ++it;
    }
  }
}

void Listener::accept_loop() {
  while (!stopping_.load()) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int r = ::poll(p, 2, -1);
    if (stopping_.load()) break;
    {
      std::lock_guard<std::mutex> lock(mu_);
      reap_finished();
    }
    if (r <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(conns_.size()) >= opts_.max_connections) {
      if (transport_->plain()) send_error(fd, 503, "too many connections");
      ::close(fd);
      continue;
    }
    conns_.emplace_back();
    Conn* c = &conns_.back();
    c->fd = fd;
    c->thread = std::thread([this, c] { serve(c); });
  }
}

ParseLimits Listener::limits_for(std::string_view buf) const {
  if (!opts_.body_limit) return opts_.limits;
  // The path from "METHOD SP target SP version" once the line is complete;
  // parse_request validates the line itself.
  size_t eol = buf.find('\n');
  if (eol == std::string_view::npos) return opts_.limits;
  size_t sp1 = buf.substr(0, eol).find(' ');
  if (sp1 == std::string_view::npos) return opts_.limits;
  std::string_view target = buf.substr(sp1 + 1, eol - sp1 - 1);
  target = target.substr(0, std::min(target.find(' '), target.find('?')));
  ParseLimits l = opts_.limits;
  l.max_body_bytes = opts_.body_limit(target);
  return l;
}

void Listener::serve(Conn* c) {
  const int fd = c->fd;
  std::unique_ptr<Connection> conn = transport_->open(fd, wake_fd_, now_ms() + opts_.request_timeout_ms);
  if (!conn) {
    ::shutdown(fd, SHUT_RDWR);
    c->done.store(true);
    return;
  }
  const bool plain = conn->plain();
  std::string buf;
  buf.reserve(4096);
  std::vector<char> chunk(kReadChunk);
  Request req;
  bool open = true;
  while (open && !stopping_.load()) {
    // Wait for the first byte of a request (idle), then for the rest of it.
    int64_t deadline = now_ms() + (buf.empty() ? opts_.idle_timeout_ms : opts_.request_timeout_ms);
    // The limits are the path's once the request line is in; parse_request
    // resumes its search for the head's end, and is not called again while
    // a body is still short: each byte is looked at a bounded number of times.
    ParseLimits limits = opts_.limits;
    bool have_limits = !opts_.body_limit;
    size_t line_searched = 0;
    auto parse = [&](size_t resume) {
      if (!have_limits) {
        if (buf.find('\n', line_searched) != std::string::npos) {
          limits = limits_for(buf);
          have_limits = true;
        } else {
          line_searched = buf.size();
        }
      }
      return parse_request(buf, limits, req, resume);
    };
    ParseResult pr = parse(0);
    while (pr.state == ParseState::kNeedMore) {
      // Read no further than the body's end when its length is known.
      size_t want = chunk.size();
      if (pr.need_bytes > buf.size()) want = std::min(want, pr.need_bytes - buf.size());
      long n = stopping_.load() ? -1 : conn->read(chunk.data(), want, deadline);
      if (n < 0) {
        if (!buf.empty() && !stopping_.load()) {
          Response res;
          res.status = 408;
          res.body = "408 Request Timeout: request not received in time\n";
          conn->write(response_head(res, false), &res.body);
        }
        open = false;
        break;
      }
      if (n == 0) {
        open = false;
        break;
      }
      const size_t old_size = buf.size();
      buf.append(chunk.data(), static_cast<size_t>(n));
      if (old_size == 0) deadline = now_ms() + opts_.request_timeout_ms;
      if (buf.size() < pr.need_bytes) continue;
      pr = parse(pr.resume);
    }
    if (!open) break;
    if (pr.state == ParseState::kError) {
      Response res;
      res.status = pr.error_status;
      res.body =
          std::to_string(pr.error_status) + " " + std::string(reason_phrase(pr.error_status)) + ": " + pr.error + "\n";
      conn->write(response_head(res, false), &res.body);
      if (plain) linger_close(fd, wake_fd_);
      break;
    }
    buf.erase(0, pr.consumed);
    if (buf.capacity() > kKeepCapacity && buf.size() < kKeepCapacity) std::string(buf).swap(buf);
    Response res;
    res.head_only = req.method == "HEAD";
    try {
      handler_(req, res);
    } catch (const std::exception& e) {
      res = Response{};
      res.status = 500;
      res.body = std::string("internal error: ") + e.what() + "\n";
    }
    bool keep = req.keep_alive() && !stopping_.load();
    std::string head = response_head(res, keep);
    if (!conn->write(head, req.method == "HEAD" ? nullptr : &res.payload())) break;
    open = keep;
  }
  conn.reset();  // a TLS connection sends its close_notify
  ::shutdown(fd, SHUT_RDWR);
  c->done.store(true);  // the owner joins and closes fd (no fd-number reuse race)
}

void Listener::stop() {
  if (stopping_.exchange(true)) return;
  if (wake_fd_ >= 0) {
    // Never read back: every poll on it stays woken from now on.
    uint64_t one = 1;
    ssize_t w = ::write(wake_fd_, &one, sizeof one);
    (void)w;
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& c : conns_) {
    if (!c.done.load()) ::shutdown(c.fd, SHUT_RDWR);
  }
  for (auto& c : conns_) {
    if (c.thread.joinable()) c.thread.join();
    ::close(c.fd);
  }
  conns_.clear();
}

}  // namespace llmon::http
