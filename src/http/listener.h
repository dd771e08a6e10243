// Listener: a small blocking HTTP/1.1 server. One accept thread; one thread
// per connection (keep-alive), at most max_connections at once — beyond that
// a new connection gets 503 and is closed. Every read has a deadline (idle
// keep-alive and header timeouts), so a slow client cannot pin a thread for
// long. The handler runs on the connection's thread and must be thread-safe.
// stop() wakes and joins every thread; safe to call more than once.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "http/request.h"
#include "http/transport.h"

namespace llmon::http {

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: the kernel picks; see Listener::port()
  int max_connections = 40;
  int idle_timeout_ms = 120'000;   // between requests on a keep-alive connection
  int request_timeout_ms = 10'000;  // to receive one whole request once it started
  ParseLimits limits;
  // Optional per-path body limit (path without query), asked once the request
  // line is in; replaces limits.max_body_bytes for that request. Must be
  // thread-safe (called from connection threads).
  std::function<size_t(std::string_view path)> body_limit;
  // How accepted sockets carry bytes; null: plain TCP. TLS: websec.
  std::shared_ptr<Transport> transport;
};

class Listener {
 public:
  using Handler = std::function<void(const Request&, Response&)>;
  Listener(ListenerOptions opts, Handler handler);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  Status start();  // binds and listens, then accepts on a background thread
  void stop();
  int port() const { return port_; }

 private:
  struct Conn {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void accept_loop();
  void serve(Conn* c);
  void reap_finished();  // joins finished connection threads; caller holds mu_
  ParseLimits limits_for(std::string_view buf) const;

  ListenerOptions opts_;
  Handler handler_;
  std::shared_ptr<Transport> transport_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd written once by stop() to wake every poll
  int port_ = 0;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::list<Conn> conns_;
};

}  // namespace llmon::http
