// The SMTP client's connection: net's TCP connect (tcp_connect.h, the
// deadline covering the name lookup) and byte stream (stream.h: deadlines,
// TLS at once or by STARTTLS, certificate and name checks per
// SmtpTlsOptions), with failures worded as the SMTP errors have always
// read ("connect: timed out after N ms", "read: ...", "TLS read: ...").
// A fresh TLS context per handshake, so a changed CA file is read again.
// Not thread-safe; one object per connection, closed by the destructor.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "net/deadline.h"
#include "net/stream.h"
#include "notify/email/smtp_client.h"

namespace llmon::notify {

using SteadyTime = net::Deadline;
using net::deadline_after_ms;

class SmtpTransport {
 public:
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
  bool tls() const { return stream_.tls(); }

 private:
  explicit SmtpTransport(net::Stream stream) : stream_(std::move(stream)) {}
  net::Stream stream_;
};

}  // namespace llmon::notify
