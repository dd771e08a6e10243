// SMTP client (RFC 5321) for alert e-mail: one connection per message,
// EHLO (HELO fallback), STARTTLS (RFC 3207) or implicit TLS ("smtps", RFC
// 8314), AUTH PLAIN / LOGIN (RFC 4954/4616), MAIL FROM, RCPT TO (several),
// DATA (dot-stuffed, CRLF-normalised) and QUIT. Every connect, read and write
// has its own deadline. It is not a mail queue: one call is one attempt and
// the caller (delivery_queue) decides about retries from the outcome.
//
// Layers, each testable alone: smtp_reply.h parses replies, smtp_dialogue.h
// is the protocol state machine (no sockets), smtp_transport.h is the
// connection (net's TCP + TLS with deadlines), and smtp_send() here drives
// the three. Thread-safe: no shared state; each call has its own connection
// and TLS context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "net/tls_context.h"
#include "notify/notification.h"

namespace llmon::notify {

// TLS settings, as in Alertmanager's tls_config: ca_file, cert_file +
// key_file, server_name (SNI and the name verified; default: the host),
// insecure_skip_verify.
using SmtpTlsOptions = net::TlsOptions;

struct SmtpClientConfig {
  std::string host;  // name or IP literal (no brackets)
  uint16_t port = 25;
  // Implicit TLS from the first byte (port 465 style) instead of STARTTLS.
  bool implicit_tls = false;
  // Without implicit TLS: insist on STARTTLS and fail when the server does
  // not offer it (Alertmanager's require_tls, default true). When false,
  // STARTTLS is not attempted at all (as Alertmanager does).
  bool require_tls = true;
  SmtpTlsOptions tls;
  std::string hello = "localhost";  // EHLO/HELO name
  // AUTH is attempted when auth_username is set and the server offers AUTH.
  // Credentials go only over TLS unless allow_insecure_auth is set.
  std::string auth_username;
  std::string auth_password;
  std::string auth_identity;  // PLAIN authorisation identity, usually empty
  bool allow_insecure_auth = false;
  int64_t connect_timeout_ms = 10000;
  int64_t io_timeout_ms = 30000;  // each read of a reply, each write

  // "host:port" ("[v6]:port") as error messages name the server.
  std::string server() const;
};

struct SmtpEnvelope {
  std::string from;             // addr-spec for MAIL FROM, e.g. alerts@example.org
  std::vector<std::string> to;  // addr-specs for RCPT TO, at least one
};

// "mail.example.org:587", "127.0.0.1:25", "[::1]:25" -> host and port. The
// port is required (as in Alertmanager's smarthost).
struct HostPort {
  std::string host;
  uint16_t port = 0;
};
Expected<HostPort> parse_host_port(std::string_view s);

// Sends one RFC 5322 message (any line endings; it is normalised to CRLF and
// dot-stuffed here). Outcome: kDelivered once the server accepted the DATA;
// kRetry for 4xx replies, network errors and timeouts; kFailed for 5xx
// replies and for configuration mismatches that a retry cannot fix (TLS
// required but not offered, certificate rejected, credentials refused over
// plain text). Errors read "smtp HOST:PORT: STEP: reply or cause".
DeliveryResult smtp_send(const SmtpClientConfig& cfg, const SmtpEnvelope& env, std::string_view message);

}  // namespace llmon::notify
