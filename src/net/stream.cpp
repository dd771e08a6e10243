// Plain and TLS byte stream with deadlines; see stream.h.
#include "net/stream.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace llmon::net {
namespace {

constexpr size_t kIoChunk = 16384;
constexpr size_t kTlsWriteChunk = 64 * 1024;  // plaintext encrypted per flush: bounds the write BIO

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// A wait that did not end ready, as an error of the given side.
IoError wait_error(WaitResult w, bool writing) {
  if (w == WaitResult::kTimeout) return IoError{IoError::Kind::kTimeout, writing, 0, {}};
  return IoError{IoError::Kind::kPoll, writing, errno, {}};
}

}  // namespace

void Stream::SslDeleter::operator()(ssl_st* p) const {
  SSL_free(p);
}

Stream::Stream(base::UniqueFd fd) : fd_(std::move(fd)) {}
Stream::~Stream() = default;
Stream::Stream(Stream&&) noexcept = default;
Stream& Stream::operator=(Stream&&) noexcept = default;

std::optional<IoError> Stream::send_raw(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (WaitResult w = wait_fd(fd_.get(), POLLOUT, deadline); w != WaitResult::kReady) return wait_error(w, true);
      continue;
    }
    return IoError{IoError::Kind::kSystem, true, errno, {}};
  }
  return std::nullopt;
}

Result<size_t, IoError> Stream::recv_raw(char* buf, size_t cap, Deadline deadline) {
  for (;;) {
    const ssize_t n = ::recv(fd_.get(), buf, cap, 0);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (WaitResult w = wait_fd(fd_.get(), POLLIN, deadline); w != WaitResult::kReady) return wait_error(w, false);
      continue;
    }
    return IoError{IoError::Kind::kSystem, false, errno, {}};
  }
}

std::optional<IoError> Stream::flush_tls(Deadline deadline) {
  BIO* wbio = SSL_get_wbio(ssl_.get());
  char buf[kIoChunk];
  while (BIO_ctrl_pending(wbio) > 0) {
    const int n = BIO_read(wbio, buf, sizeof buf);
    if (n <= 0) break;
    if (auto e = send_raw(std::string_view(buf, static_cast<size_t>(n)), deadline)) return e;
  }
  return std::nullopt;
}

Result<size_t, IoError> Stream::fill_tls(Deadline deadline) {
  char buf[kIoChunk];
  auto n = recv_raw(buf, sizeof buf, deadline);
  if (n && *n > 0) BIO_write(SSL_get_rbio(ssl_.get()), buf, static_cast<int>(*n));
  return n;
}

std::optional<TlsHandshakeError> Stream::start_tls(const TlsContext& ctx, const std::string& host, Deadline deadline) {
  using Kind = TlsHandshakeError::Kind;
  ERR_clear_error();
  ssl_.reset(SSL_new(ctx.native()));
  BIO* rbio = ssl_ ? BIO_new(BIO_s_mem()) : nullptr;
  BIO* wbio = rbio ? BIO_new(BIO_s_mem()) : nullptr;
  if (!wbio) {
    BIO_free(rbio);
    ssl_.reset();
    return TlsHandshakeError{Kind::kSetup, openssl_errors(), {}};
  }
  SSL_set_bio(ssl_.get(), rbio, wbio);
  const std::string& name = ctx.options().server_name.empty() ? host : ctx.options().server_name;
  const bool ip = is_ip_literal(name);
  if (!ip) SSL_set_tlsext_host_name(ssl_.get(), name.c_str());
  if (!ctx.options().insecure_skip_verify) {
    const int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_.get()), name.c_str())
                      : SSL_set1_host(ssl_.get(), name.c_str());
    if (ok != 1) return TlsHandshakeError{Kind::kName, name, {}};
  }
  SSL_set_connect_state(ssl_.get());
  for (;;) {
    ERR_clear_error();
    const int rc = SSL_do_handshake(ssl_.get());
    if (auto e = flush_tls(deadline)) return TlsHandshakeError{Kind::kIo, {}, *e};
    if (rc == 1) return std::nullopt;
    if (SSL_get_error(ssl_.get(), rc) == SSL_ERROR_WANT_READ) {
      auto n = fill_tls(deadline);
      if (!n) return TlsHandshakeError{Kind::kIo, {}, n.error()};
      if (*n == 0) return TlsHandshakeError{Kind::kClosed, {}, {}};
      continue;
    }
    const long verify = SSL_get_verify_result(ssl_.get());
    if (verify != X509_V_OK) return TlsHandshakeError{Kind::kVerify, X509_verify_cert_error_string(verify), {}};
    return TlsHandshakeError{Kind::kProtocol, openssl_errors(), {}};
  }
}

std::optional<IoError> Stream::write_all(std::string_view data, Deadline deadline) {
  if (!ssl_) return send_raw(data, deadline);
  while (!data.empty()) {
    ERR_clear_error();
    size_t written = 0;
    if (SSL_write_ex(ssl_.get(), data.data(), std::min(data.size(), kTlsWriteChunk), &written) != 1)
      return IoError{IoError::Kind::kTls, true, 0, openssl_errors()};
    data.remove_prefix(written);
    if (auto e = flush_tls(deadline)) return e;
  }
  return std::nullopt;
}

Result<size_t, IoError> Stream::read_some(char* buf, size_t cap, Deadline deadline) {
  if (!ssl_) return recv_raw(buf, cap, deadline);
  for (;;) {
    ERR_clear_error();
    size_t n = 0;
    if (SSL_read_ex(ssl_.get(), buf, cap, &n) == 1) return n;
    const int err = SSL_get_error(ssl_.get(), 0);
    if (err == SSL_ERROR_ZERO_RETURN) return size_t{0};
    if (err != SSL_ERROR_WANT_READ) return IoError{IoError::Kind::kTls, false, 0, openssl_errors()};
    if (auto e = flush_tls(deadline)) return *e;  // a TLS 1.3 key update or ticket reply
    auto got = fill_tls(deadline);
    if (!got) return got.error();
    if (*got == 0) return size_t{0};  // TCP closed without close_notify
  }
}

}  // namespace llmon::net
