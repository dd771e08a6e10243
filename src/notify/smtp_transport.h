// A client TCP connection that can switch to TLS (OpenSSL 3), for the SMTP
// client. Every operation takes a deadline, so a silent or trickling server
// cannot hold a sender thread. The socket is non-blocking; TLS runs over
// memory BIOs and the bytes are moved with send(MSG_NOSIGNAL), so a closed
// peer never raises SIGPIPE. By default the server certificate is verified
// against the system store (or ca_file) and the host name (or server_name)
// is checked and sent as SNI; IP literals are checked against IP SANs and
// not sent as SNI. Not thread-safe; one object per connection, closed by
// the destructor.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "notify/smtp_client.h"

// OpenSSL's SSL and SSL_CTX (kept out of this header).
struct ssl_st;
struct ssl_ctx_st;

namespace llmon::notify {

using SteadyTime = std::chrono::steady_clock::time_point;
inline SteadyTime deadline_after_ms(int64_t ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

class SmtpTransport {
 public:
  ~SmtpTransport();
  SmtpTransport(const SmtpTransport&) = delete;
  SmtpTransport& operator=(const SmtpTransport&) = delete;

  // Resolves host and connects to the first address that answers before the
  // deadline. Errors: "connection refused", "timed out after N ms", ...
  static Expected<std::unique_ptr<SmtpTransport>> connect(const std::string& host, uint16_t port, int64_t timeout_ms);

  struct TlsError {
    std::string message;
    bool permanent = false;  // a certificate/configuration problem a retry cannot fix
  };
  // TLS handshake on the open connection. Returns an empty message on success.
  TlsError start_tls(const SmtpTlsOptions& opts, const std::string& host, SteadyTime deadline);

  Status write_all(std::string_view data, SteadyTime deadline);
  // At least one byte, or "" at end of stream; an error on timeout.
  Expected<std::string> read_some(SteadyTime deadline);
  bool tls() const { return ssl_ != nullptr; }

 private:
  explicit SmtpTransport(int fd) : fd_(fd) {}
  Status send_raw(std::string_view data, SteadyTime deadline);
  Expected<std::string> recv_raw(SteadyTime deadline);
  Status flush_tls(SteadyTime deadline);

  struct SslDeleter {
    void operator()(ssl_st* p) const;
  };
  struct CtxDeleter {
    void operator()(ssl_ctx_st* p) const;
  };
  int fd_ = -1;
  std::unique_ptr<ssl_ctx_st, CtxDeleter> ctx_;
  std::unique_ptr<ssl_st, SslDeleter> ssl_;  // after ctx_: destroyed first
};

}  // namespace llmon::notify
