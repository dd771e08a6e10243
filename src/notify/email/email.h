// E-mail notifications: a Notification rendered as one RFC 5322 message
// (multipart/alternative: a readable text/plain part and a text/html part,
// both UTF-8 quoted-printable) and sent through smtp_client.h. The subject
// is Alertmanager's default ("[FIRING:2] GpuMemoryHigh (gpu0 node1)", its
// __subject template in default.tmpl). Alert text (labels, annotations,
// URLs) is untrusted: headers go through email_mime.h's header_text() (no
// CR/LF, RFC 2047 for non-ASCII), HTML is escaped and only http(s) links
// become anchors. Not a template engine: the layout is fixed.
// Renderers are pure; EmailSender is thread-safe (send() from any worker).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "notify/email/smtp_client.h"
#include "notify/notification.h"

namespace llmon::notify {

// Alertmanager's email_config, minus templating (notify_config.h's EmailConfig
// is the YAML form; the app builds this from it).
struct EmailSenderConfig {
  std::vector<std::string> to;  // mailboxes, one per entry ("Ops <ops@x>" or "ops@x")
  std::string from;             // mailbox
  std::string smarthost;        // "host:port"
  std::string hello = "localhost";
  std::string auth_username;
  std::string auth_password;
  std::string auth_identity;
  bool require_tls = true;           // STARTTLS mandatory (Alertmanager's default)
  std::optional<bool> implicit_tls;  // unset: implicit TLS when the port is 465
  bool allow_insecure_auth = false;  // AUTH over a plain connection
  SmtpTlsOptions tls;
  // Extra headers, or replacements for From/To/Subject (names compared
  // case-insensitively). MIME-Version, Content-*, Date and Message-ID are
  // set by llmon and refused here.
  LabelPairs headers;
  bool send_resolved = false;  // Alertmanager's email default
  int64_t connect_timeout_ms = 10000;
  int64_t timeout_ms = 30000;  // each SMTP read/write
};

// Checks addresses, smarthost, headers and timeouts; messages name the field.
Status validate_email_config(const EmailSenderConfig& cfg);

// The parts of a message, each a pure function of the notification (alert
// states are judged at n.created_ms).
std::string email_subject(const Notification& n);
std::string email_text_body(const Notification& n);
std::string email_html_body(const Notification& n);

// What changes per message: the Date, the Message-ID ("<id@host>") and the
// MIME boundary token ([0-9A-Za-z] only; "=_" is prepended, which cannot
// occur in quoted-printable text).
struct EmailEnvelopeInfo {
  int64_t date_ms = 0;
  std::string message_id;
  std::string boundary_token;
};
// The complete message with CRLF line endings (before SMTP dot-stuffing).
Expected<std::string> render_email(const Notification& n, const EmailSenderConfig& cfg, const EmailEnvelopeInfo& info);

// A Sender of kind "email". Without send_resolved, resolved alerts are left
// out and a notification with only resolved alerts sends nothing (as
// Alertmanager). 4xx/network/timeouts retry, 5xx and configuration
// mismatches fail (smtp_client.h).
class EmailSender final : public Sender {
 public:
  // hostname: for Message-IDs; empty means gethostname().
  static Expected<std::unique_ptr<EmailSender>> create(EmailSenderConfig cfg, const base::Clock& clock,
                                                       std::string hostname = "");
  std::string_view kind() const override { return "email"; }
  DeliveryResult send(const Notification& n) override;
  // The message send() would transmit now (nullopt: nothing to send).
  Expected<std::optional<std::string>> render(const Notification& n);
  const SmtpClientConfig& smtp_config() const { return smtp_; }

 private:
  EmailSender(EmailSenderConfig cfg, const base::Clock& clock, std::string hostname);
  Notification filtered(const Notification& n) const;

  EmailSenderConfig cfg_;
  SmtpClientConfig smtp_;
  SmtpEnvelope envelope_;
  const base::Clock& clock_;
  std::string hostname_;
  std::atomic<uint64_t> counter_{0};
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace llmon::notify
