// The I/O half of the HTTP client (see http_post.h): non-blocking sockets
// polled against deadlines, OpenSSL 3 for https through a socket BIO that
// sends with MSG_NOSIGNAL (a peer that resets never raises SIGPIPE).
#include "notify/http_post.h"

#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace llmon::notify::http {
namespace {

using Steady = std::chrono::steady_clock;

int ms_left(Steady::time_point deadline) {
  const auto d = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
  return d > 0 ? static_cast<int>(std::min<int64_t>(d, 1 << 30)) : 0;
}

std::string openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown TLS error" : out;
}

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

std::string address_text(const addrinfo* ai) {
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (::getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "?";
  return ai->ai_family == AF_INET6 ? "[" + std::string(host) + "]:" + serv : std::string(host) + ":" + serv;
}

// Connects one resolved address before the deadline; -1 and `err` on failure.
int connect_one(const addrinfo* ai, Steady::time_point deadline, std::string& err) {
  const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) {
    err = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
    err = "connect " + address_text(ai) + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int rc;
  do rc = ::poll(&p, 1, ms_left(deadline));
  while (rc < 0 && errno == EINTR);
  if (rc <= 0) {
    err = "connect " + address_text(ai) + ": timed out";
    ::close(fd);
    return -1;
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
  if (so_error != 0) {
    err = "connect " + address_text(ai) + ": " + std::strerror(so_error);
    ::close(fd);
    return -1;
  }
  return fd;
}

// Waits for `events` on fd; false on timeout (err set).
bool wait_fd(int fd, short events, Steady::time_point deadline, std::string_view what, std::string& err) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int rc = ::poll(&p, 1, ms_left(deadline));
    if (rc > 0) return true;
    if (rc < 0 && errno == EINTR) continue;
    err = rc == 0 ? "timed out " + std::string(what) : std::string("poll: ") + std::strerror(errno);
    return false;
  }
}

// ---- socket BIO without SIGPIPE ----

int bio_write(BIO* b, const char* buf, int len) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(b)));
  BIO_clear_retry_flags(b);
  const ssize_t n = ::send(fd, buf, static_cast<size_t>(len), MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_write(b);
  return static_cast<int>(n);
}

int bio_read(BIO* b, char* buf, int len) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(b)));
  BIO_clear_retry_flags(b);
  const ssize_t n = ::recv(fd, buf, static_cast<size_t>(len), 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(b);
  return static_cast<int>(n);
}

long bio_ctrl(BIO*, int cmd, long, void*) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

// One connection: plain or TLS, reads and writes bounded by a deadline.
class Conn {
 public:
  Conn(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~Conn() {
    if (ssl_) SSL_free(ssl_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // SSL_ERROR_WANT_* → the poll events to wait for; 0 for a hard error.
  short want(int ssl_rc) {
    const int e = SSL_get_error(ssl_, ssl_rc);
    if (e == SSL_ERROR_WANT_READ) return POLLIN;
    if (e == SSL_ERROR_WANT_WRITE) return POLLOUT;
    return 0;
  }

  bool handshake(Steady::time_point deadline, std::string& err) {
    for (;;) {
      ERR_clear_error();
      const int rc = SSL_connect(ssl_);
      if (rc == 1) return true;
      const short ev = want(rc);
      if (ev == 0) {
        const long vr = SSL_get_verify_result(ssl_);
        err = "TLS handshake: ";
        if (vr != X509_V_OK)
          err += std::string("certificate verification failed: ") + X509_verify_cert_error_string(vr);
        else if (ERR_peek_error() == 0)
          err += errno != 0 ? std::string(std::strerror(errno)) : "connection closed by peer";
        else
          err += openssl_errors();
        return false;
      }
      if (!wait_fd(fd_, ev, deadline, "in the TLS handshake", err)) return false;
    }
  }

  bool write_all(std::string_view data, Steady::time_point deadline, std::string& err) {
    while (!data.empty()) {
      const int chunk = static_cast<int>(std::min<size_t>(data.size(), 1 << 20));
      if (ssl_) {
        ERR_clear_error();
        const int rc = SSL_write(ssl_, data.data(), chunk);
        if (rc > 0) {
          data.remove_prefix(static_cast<size_t>(rc));
          continue;
        }
        const short ev = want(rc);
        if (ev == 0) {
          err = "sending the request: " + (ERR_peek_error() ? openssl_errors() : std::string(std::strerror(errno)));
          return false;
        }
        if (!wait_fd(fd_, ev, deadline, "sending the request", err)) return false;
        continue;
      }
      const ssize_t n = ::send(fd_, data.data(), static_cast<size_t>(chunk), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        if (!wait_fd(fd_, POLLOUT, deadline, "sending the request", err)) return false;
        continue;
      }
      err = std::string("sending the request: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

  // > 0 bytes read, 0 end of stream, -1 error (err set).
  ssize_t read_some(char* buf, size_t cap, Steady::time_point deadline, std::string& err) {
    for (;;) {
      if (ssl_) {
        ERR_clear_error();
        const int rc = SSL_read(ssl_, buf, static_cast<int>(cap));
        if (rc > 0) return rc;
        const int e = SSL_get_error(ssl_, rc);
        if (e == SSL_ERROR_ZERO_RETURN) return 0;
        const short ev = want(rc);
        if (ev == 0) {
          if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && errno == 0) return 0;
          err = "reading the response: " + (ERR_peek_error() ? openssl_errors() : std::string(std::strerror(errno)));
          return -1;
        }
        if (!wait_fd(fd_, ev, deadline, "waiting for the response", err)) return -1;
        continue;
      }
      const ssize_t n = ::recv(fd_, buf, cap, 0);
      if (n >= 0) return n;
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        if (!wait_fd(fd_, POLLIN, deadline, "waiting for the response", err)) return -1;
        continue;
      }
      err = std::string("reading the response: ") + std::strerror(errno);
      return -1;
    }
  }

 private:
  int fd_;
  SSL* ssl_;
};

}  // namespace

struct Client::Tls {
  SSL_CTX* ctx = nullptr;
  BIO_METHOD* bio = nullptr;
  ~Tls() {
    if (ctx) SSL_CTX_free(ctx);
    if (bio) BIO_meth_free(bio);
  }
};

Client::Client(ClientOptions opts) : opts_(std::move(opts)) {}
Client::~Client() = default;

Status Client::prepare_tls() const {
  std::lock_guard lock(tls_mu_);
  if (tls_) return Status::ok();
  auto tls = std::make_unique<Tls>();
  ERR_clear_error();
  tls->ctx = SSL_CTX_new(TLS_client_method());
  if (!tls->ctx) return Status::error("creating the TLS context: " + openssl_errors());
  SSL_CTX_set_min_proto_version(tls->ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(tls->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(tls->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (opts_.tls_insecure_skip_verify) {
    SSL_CTX_set_verify(tls->ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(tls->ctx, SSL_VERIFY_PEER, nullptr);
    if (!opts_.tls_ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(tls->ctx, opts_.tls_ca_file.c_str(), nullptr) != 1)
        return Status::error("loading CA file " + opts_.tls_ca_file + ": " + openssl_errors());
    } else if (SSL_CTX_set_default_verify_paths(tls->ctx) != 1) {
      return Status::error("loading the system CA store: " + openssl_errors());
    }
  }
  tls->bio = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "llmon socket");
  if (!tls->bio) return Status::error("creating the TLS socket BIO: " + openssl_errors());
  BIO_meth_set_write(tls->bio, bio_write);
  BIO_meth_set_read(tls->bio, bio_read);
  BIO_meth_set_ctrl(tls->bio, bio_ctrl);
  tls_ = std::move(tls);
  return Status::ok();
}

Expected<Response> Client::request(std::string_view method, const Url& url, std::string_view content_type,
                                   std::string_view body) const {
  const std::string prefix = std::string(method) + " " + url.redacted() + ": ";
  auto fail = [&](const std::string& what) { return Status::error(prefix + what); };
  const auto start = Steady::now();
  const auto deadline = start + std::chrono::milliseconds(std::max(1, opts_.timeout_ms));
  const auto connect_deadline =
      std::min(deadline, start + std::chrono::milliseconds(std::max(1, opts_.connect_timeout_ms)));

  SSL_CTX* ctx = nullptr;
  BIO_METHOD* bio_method = nullptr;
  if (url.is_tls()) {
    if (Status s = prepare_tls(); !s) return fail(s.message());
    std::lock_guard lock(tls_mu_);
    ctx = tls_->ctx;
    bio_method = tls_->bio;
  }

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(url.port);
  if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &res); rc != 0)
    return fail("resolving " + url.host + ": " + ::gai_strerror(rc));
  Fd fd;
  std::string errors;
  for (const addrinfo* ai = res; ai && fd.get() < 0; ai = ai->ai_next) {
    std::string err;
    const int s = connect_one(ai, connect_deadline, err);
    if (s >= 0) {
      fd.reset(s);
    } else {
      if (!errors.empty()) errors += "; ";
      errors += err;
    }
    if (Steady::now() >= connect_deadline) break;
  }
  ::freeaddrinfo(res);
  if (fd.get() < 0) return fail(errors.empty() ? "no address to connect to" : errors);

  SSL* ssl = nullptr;
  if (ctx) {
    ssl = SSL_new(ctx);
    BIO* bio = ssl ? BIO_new(bio_method) : nullptr;
    if (!ssl || !bio) {
      if (ssl) SSL_free(ssl);
      return fail("setting up TLS: " + openssl_errors());
    }
    BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd.get())));
    BIO_set_init(bio, 1);
    SSL_set_bio(ssl, bio, bio);
  }
  Conn conn(fd.get(), ssl);
  std::string err;
  if (ssl) {
    const std::string& name = opts_.tls_server_name.empty() ? url.host : opts_.tls_server_name;
    const bool ip = name.find(':') != std::string::npos || name.find_first_not_of("0123456789.") == std::string::npos;
    if (!ip) SSL_set_tlsext_host_name(ssl, name.c_str());
    if (!opts_.tls_insecure_skip_verify) {
      const int ok =
          ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str()) : SSL_set1_host(ssl, name.c_str());
      if (ok != 1) return fail("TLS: cannot verify against name \"" + name + "\"");
    }
    errno = 0;
    if (!conn.handshake(deadline, err)) return fail(err);
  }

  if (!conn.write_all(serialize_request(method, url, content_type, body, opts_), deadline, err)) return fail(err);

  ResponseParser parser(opts_.max_response_body_bytes, method == "HEAD");
  char buf[16384];
  for (;;) {
    errno = 0;
    const ssize_t n = conn.read_some(buf, sizeof buf, deadline, err);
    if (n < 0) {
      if (err.rfind("timed out", 0) == 0) err += " (" + std::to_string(opts_.timeout_ms) + " ms)";
      return fail(err);
    }
    const auto state = n == 0 ? parser.finish() : parser.feed(std::string_view(buf, static_cast<size_t>(n)));
    if (state == ResponseParser::State::kError) return fail("bad response: " + parser.error());
    if (state == ResponseParser::State::kDone) break;
  }
  return std::move(parser.response());
}

}  // namespace llmon::notify::http
