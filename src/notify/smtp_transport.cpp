// TCP + TLS client connection with deadlines; see smtp_transport.h.
#include "notify/smtp_transport.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace llmon::notify {

namespace {

int remaining_ms(SteadyTime deadline) {
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  if (left <= 0) return 0;
  return left > 1 << 30 ? 1 << 30 : static_cast<int>(left);
}

// Waits for `events` on fd; false on timeout (errno-free: the caller words it).
Status wait_fd(int fd, short events, SteadyTime deadline, std::string_view what) {
  while (true) {
    int ms = remaining_ms(deadline);
    if (ms == 0) return Status::error("timed out waiting to " + std::string(what));
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, ms);
    if (r > 0) return Status::ok();
    if (r == 0) return Status::error("timed out waiting to " + std::string(what));
    if (errno != EINTR) return Status::error(std::string("poll: ") + std::strerror(errno));
  }
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

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

void SmtpTransport::SslDeleter::operator()(ssl_st* p) const {
  SSL_free(p);
}
void SmtpTransport::CtxDeleter::operator()(ssl_ctx_st* p) const {
  SSL_CTX_free(p);
}

SmtpTransport::~SmtpTransport() {
  ssl_.reset();
  ctx_.reset();
  if (fd_ >= 0) ::close(fd_);
}

Expected<std::unique_ptr<SmtpTransport>> SmtpTransport::connect(const std::string& host, uint16_t port,
                                                                int64_t timeout_ms) {
  SteadyTime deadline = deadline_after_ms(timeout_ms);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string port_s = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res); rc != 0)
    return Status::error("resolving " + host + ": " + gai_strerror(rc));
  std::string last_error = "no addresses";
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_error = std::string("socket: ") + std::strerror(errno);
      continue;
    }
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      Status w = wait_fd(fd, POLLOUT, deadline, "connect");
      if (!w) {
        last_error = "timed out after " + std::to_string(timeout_ms) + " ms";
        ::close(fd);
        break;  // the deadline is shared by all addresses
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc == 0) {
      ::freeaddrinfo(res);
      return std::unique_ptr<SmtpTransport>(new SmtpTransport(fd));
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return Status::error(last_error);
}

Status SmtpTransport::send_raw(std::string_view data, SteadyTime deadline) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (Status w = wait_fd(fd_, POLLOUT, deadline, "write"); !w) return w;
      continue;
    }
    return Status::error(std::string("write: ") + std::strerror(errno));
  }
  return Status::ok();
}

Expected<std::string> SmtpTransport::recv_raw(SteadyTime deadline) {
  char buf[16384];
  while (true) {
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n >= 0) return std::string(buf, static_cast<size_t>(n));
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (Status w = wait_fd(fd_, POLLIN, deadline, "read the reply"); !w) return w;
      continue;
    }
    return Status::error(std::string("read: ") + std::strerror(errno));
  }
}

Status SmtpTransport::flush_tls(SteadyTime deadline) {
  BIO* wbio = SSL_get_wbio(ssl_.get());
  char buf[16384];
  while (BIO_ctrl_pending(wbio) > 0) {
    int n = BIO_read(wbio, buf, sizeof buf);
    if (n <= 0) break;
    if (Status s = send_raw(std::string_view(buf, static_cast<size_t>(n)), deadline); !s) return s;
  }
  return Status::ok();
}

SmtpTransport::TlsError SmtpTransport::start_tls(const SmtpTlsOptions& opts, const std::string& host,
                                                 SteadyTime deadline) {
  ERR_clear_error();
  ctx_.reset(SSL_CTX_new(TLS_client_method()));
  if (!ctx_) return {"creating TLS context: " + openssl_errors(), true};
  SSL_CTX_set_min_proto_version(ctx_.get(), TLS1_2_VERSION);
  if (!opts.insecure_skip_verify) {
    SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
    int ok = opts.ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx_.get())
                                  : SSL_CTX_load_verify_locations(ctx_.get(), opts.ca_file.c_str(), nullptr);
    if (ok != 1) return {"loading CA certificates " + opts.ca_file + ": " + openssl_errors(), true};
  } else {
    SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_NONE, nullptr);
  }
  if (!opts.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx_.get(), opts.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx_.get(), opts.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx_.get()) != 1)
      return {"loading client certificate " + opts.cert_file + ": " + openssl_errors(), true};
  }
  ssl_.reset(SSL_new(ctx_.get()));
  if (!ssl_) return {"creating TLS session: " + openssl_errors(), true};
  const std::string& name = opts.server_name.empty() ? host : opts.server_name;
  if (!opts.insecure_skip_verify) {
    if (is_ip_literal(name)) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_.get()), name.c_str());
    } else {
      SSL_set1_host(ssl_.get(), name.c_str());
    }
  }
  if (!is_ip_literal(name)) SSL_set_tlsext_host_name(ssl_.get(), name.c_str());
  SSL_set_bio(ssl_.get(), BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
  SSL_set_connect_state(ssl_.get());
  while (true) {
    ERR_clear_error();
    int r = SSL_do_handshake(ssl_.get());
    if (Status s = flush_tls(deadline); !s) return {s.message(), false};
    if (r == 1) return {};
    int err = SSL_get_error(ssl_.get(), r);
    if (err == SSL_ERROR_WANT_READ) {
      auto chunk = recv_raw(deadline);
      if (!chunk) return {chunk.error(), false};
      if (chunk->empty()) return {"connection closed during the TLS handshake", false};
      BIO_write(SSL_get_rbio(ssl_.get()), chunk->data(), static_cast<int>(chunk->size()));
      continue;
    }
    long verify = SSL_get_verify_result(ssl_.get());
    if (verify != X509_V_OK)
      return {std::string("certificate verification failed: ") + X509_verify_cert_error_string(verify), true};
    return {openssl_errors(), false};
  }
}

Status SmtpTransport::write_all(std::string_view data, SteadyTime deadline) {
  if (!ssl_) return send_raw(data, deadline);
  ERR_clear_error();
  size_t off = 0;
  while (off < data.size()) {
    size_t written = 0;
    if (SSL_write_ex(ssl_.get(), data.data() + off, data.size() - off, &written) != 1)
      return Status::error("TLS write: " + openssl_errors());
    off += written;
    if (Status s = flush_tls(deadline); !s) return s;
  }
  return Status::ok();
}

Expected<std::string> SmtpTransport::read_some(SteadyTime deadline) {
  if (!ssl_) return recv_raw(deadline);
  char buf[16384];
  while (true) {
    ERR_clear_error();
    size_t n = 0;
    if (SSL_read_ex(ssl_.get(), buf, sizeof buf, &n) == 1) return std::string(buf, n);
    int err = SSL_get_error(ssl_.get(), 0);
    if (err == SSL_ERROR_ZERO_RETURN) return std::string();
    if (err != SSL_ERROR_WANT_READ) return Status::error("TLS read: " + openssl_errors());
    if (Status s = flush_tls(deadline); !s) return s;
    auto chunk = recv_raw(deadline);
    if (!chunk) return chunk.status();
    if (chunk->empty()) return std::string();  // TCP closed without close_notify
    BIO_write(SSL_get_rbio(ssl_.get()), chunk->data(), static_cast<int>(chunk->size()));
  }
}

}  // namespace llmon::notify
