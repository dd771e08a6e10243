// Test-only HTTP receiver for the notify tests: a server thread on
// 127.0.0.1 (port picked by the kernel) that records every request and
// answers as the test's handler says: a status and body, a chunked body, a
// hang (no answer until the receiver stops), or closing the connection
// without an answer. Optional TLS with a server SSL_CTX the test built.
// Written independently of src/notify/http_* so their bugs are not shared.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace llmon::notify::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::string sni;  // TLS server name the client sent, if any

  std::string header(const std::string& lower_name) const {
    for (const auto& [k, v] : headers)
      if (k == lower_name) return v;
    return "";
  }
};

struct Reply {
  enum class Action { kRespond, kHang, kClose };
  Action action = Action::kRespond;
  int status = 200;
  std::string body = "ok";
  bool chunked = false;
};

class Receiver {
 public:
  using Handler = std::function<Reply(const ReceivedRequest&, int index)>;

  explicit Receiver(Handler handler = nullptr, SSL_CTX* tls = nullptr) : handler_(std::move(handler)), tls_(tls) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ok_ = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(listen_fd_, 64) == 0;
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }
  ~Receiver() { stop(); }
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  bool ok() const { return ok_; }
  int port() const { return port_; }
  std::string url(const std::string& path = "/") const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
  }

  void stop() {
    {
      std::lock_guard lock(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    cv_.notify_all();
    ::shutdown(listen_fd_, SHUT_RDWR);
    if (accept_thread_.joinable()) accept_thread_.join();
    ::close(listen_fd_);
    std::vector<std::thread> conns;
    {
      std::lock_guard lock(mu_);
      conns.swap(conn_threads_);
    }
    for (auto& t : conns) t.join();
  }

  std::vector<ReceivedRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  size_t count() const {
    std::lock_guard lock(mu_);
    return requests_.size();
  }
  // Waits until at least n requests arrived; false on timeout.
  bool wait_for(size_t n, int timeout_ms = 10000) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return requests_.size() >= n; });
  }

 private:
  void accept_loop() {
    for (;;) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR) continue;
        return;
      }
      std::lock_guard lock(mu_);
      if (stopped_) {
        ::close(fd);
        return;
      }
      conn_threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // Blocking reads with a poll so stop() is noticed.
  bool read_some(int fd, SSL* ssl, std::string& buf) {
    for (;;) {
      if (!ssl || SSL_pending(ssl) == 0) {
        pollfd p{fd, POLLIN, 0};
        const int rc = ::poll(&p, 1, 100);
        if (rc == 0) {
          std::lock_guard lock(mu_);
          if (stopped_) return false;
          continue;
        }
        if (rc < 0) return false;
      }
      char tmp[8192];
      const int n = ssl ? SSL_read(ssl, tmp, sizeof tmp) : static_cast<int>(::recv(fd, tmp, sizeof tmp, 0));
      if (n <= 0) return false;
      buf.append(tmp, static_cast<size_t>(n));
      return true;
    }
  }

  void write_all(int fd, SSL* ssl, const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      const int n = ssl ? SSL_write(ssl, data.data() + off, static_cast<int>(data.size() - off))
                        : static_cast<int>(::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL));
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }

  void serve(int fd) {
    timeval tv{5, 0};  // a client that never speaks cannot wedge the TLS accept
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    SSL* ssl = nullptr;
    std::string sni;
    if (tls_) {
      ssl = SSL_new(tls_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) != 1) {
        SSL_free(ssl);
        ::close(fd);
        return;
      }
      if (const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name)) sni = name;
    }
    std::string buf;
    size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos)
      if (!read_some(fd, ssl, buf)) return finish(fd, ssl);
    ReceivedRequest req;
    req.sni = sni;
    const std::string head = buf.substr(0, head_end);
    size_t line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    const size_t sp1 = request_line.find(' '), sp2 = request_line.rfind(' ');
    req.method = request_line.substr(0, sp1);
    req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t content_length = 0;
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      const std::string line = head.substr(pos, e - pos);
      pos = e + 2;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      if (name == "content-length") content_length = std::stoul(value);
      req.headers.emplace_back(name, value);
    }
    std::string body = buf.substr(head_end + 4);
    while (body.size() < content_length)
      if (!read_some(fd, ssl, body)) return finish(fd, ssl);
    req.body = body.substr(0, content_length);
    int index;
    {
      std::lock_guard lock(mu_);
      index = static_cast<int>(requests_.size());
      requests_.push_back(req);
    }
    cv_.notify_all();
    const Reply reply = handler_ ? handler_(req, index) : Reply{};
    if (reply.action == Reply::Action::kHang) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopped_; });
    } else if (reply.action == Reply::Action::kRespond) {
      std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " Status\r\nConnection: close\r\n";
      if (reply.chunked) {
        out += "Transfer-Encoding: chunked\r\n\r\n";
        // Two chunks with an extension and a trailer, to exercise the parser.
        const size_t half = reply.body.size() / 2;
        char hex[32];
        std::snprintf(hex, sizeof hex, "%zx", half);
        out += std::string(hex) + ";ext=1\r\n" + reply.body.substr(0, half) + "\r\n";
        std::snprintf(hex, sizeof hex, "%zX", reply.body.size() - half);
        out += std::string(hex) + "\r\n" + reply.body.substr(half) + "\r\n0\r\nX-Trailer: t\r\n\r\n";
      } else {
        out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n\r\n" + reply.body;
      }
      write_all(fd, ssl, out);
    }
    finish(fd, ssl);
  }

  void finish(int fd, SSL* ssl) {
    if (ssl) {
      SSL_shutdown(ssl);
      SSL_free(ssl);
    }
    ::close(fd);
  }

  Handler handler_;
  SSL_CTX* tls_;
  int listen_fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopped_ = false;
  std::vector<ReceivedRequest> requests_;
  std::vector<std::thread> conn_threads_;
  std::thread accept_thread_;
};

// A fresh directory under ::testing::TempDir(), removed with its contents.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string tmpl = ::testing::TempDir() + "llmon_notify_XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScopedTempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Polls `cond` until it holds or timeout_ms passes.
template <typename Cond>
bool eventually(Cond cond, int timeout_ms = 10000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cond();
}

}  // namespace llmon::notify::testing
