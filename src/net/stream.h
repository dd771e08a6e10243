// One client connection's bytes: a connected TCP socket (tcp_connect.h)
// that can switch to TLS (at once for https/smtps, or later for STARTTLS),
// with a deadline on every read, write and handshake, so a silent or
// trickling peer cannot hold the calling thread. TLS runs over memory BIOs
// and the bytes are moved with send(MSG_NOSIGNAL), so a peer that resets
// never raises SIGPIPE. start_tls verifies the certificate (unless the
// context skips verification) against the server name, the context's
// server_name or else the host: a DNS name is checked and sent as SNI, an
// IP literal is checked against the IP SANs and not sent. Failures are
// values (io_error.h) that say what broke; callers word them. One thread
// at a time; closed by the destructor.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/unique_fd.h"
#include "net/deadline.h"
#include "net/io_error.h"
#include "net/result.h"
#include "net/tls_context.h"

struct ssl_st;  // OpenSSL's SSL

namespace llmon::net {

class Stream {
 public:
  explicit Stream(base::UniqueFd fd);  // connected and non-blocking
  ~Stream();
  Stream(Stream&&) noexcept;
  Stream& operator=(Stream&&) noexcept;

  // TLS handshake on the open connection (nothing may have been read past
  // what the peer said before it, or those bytes are lost to TLS).
  std::optional<TlsHandshakeError> start_tls(const TlsContext& ctx, const std::string& host, Deadline deadline);
  std::optional<IoError> write_all(std::string_view data, Deadline deadline);
  // Up to cap bytes, at least one; 0 at the end of the stream (TLS:
  // close_notify, or the TCP connection closed without it).
  Result<size_t, IoError> read_some(char* buf, size_t cap, Deadline deadline);

  bool tls() const { return ssl_ != nullptr; }
  int fd() const { return fd_.get(); }

 private:
  std::optional<IoError> send_raw(std::string_view data, Deadline deadline);
  Result<size_t, IoError> recv_raw(char* buf, size_t cap, Deadline deadline);
  std::optional<IoError> flush_tls(Deadline deadline);  // the encrypted bytes waiting in the write BIO
  Result<size_t, IoError> fill_tls(Deadline deadline);  // socket -> read BIO; 0 at end of stream

  struct SslDeleter {
    void operator()(ssl_st* p) const;
  };
  base::UniqueFd fd_;
  std::unique_ptr<ssl_st, SslDeleter> ssl_;  // holds its own reference to the SSL_CTX
};

}  // namespace llmon::net
