// The client side of one SMTP session as a state machine without sockets:
// it is told the server's replies (and transport events) and answers with
// the next action: bytes to send, "start TLS now", done or failed. The
// driver in smtp_client.cpp owns the socket; tests drive this class with
// literal server transcripts. Protocol: RFC 5321 (§3.3 mail transaction,
// §4.1.1.1 EHLO/HELO, §4.5.2 dot-stuffing), RFC 3207 STARTTLS, RFC 4954
// AUTH with PLAIN (RFC 4616) and LOGIN. Not thread-safe; one per session.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "notify/email/smtp_client.h"
#include "notify/email/smtp_reply.h"
#include "notify/notification.h"

namespace llmon::notify {

class SmtpDialogue {
 public:
  struct Action {
    enum class Kind {
      kSend,      // write `bytes`, then read the next reply
      kStartTls,  // do the TLS handshake, then call on_tls_ready()
      kDone,      // the message was accepted; close (result is kDelivered)
      kFail,      // give up: write `bytes` if not empty (a polite QUIT), close
    };
    Kind kind = Kind::kSend;
    std::string bytes;
    DeliveryResult result;  // kDone and kFail
  };

  // cfg, env and message must outlive the dialogue. tls_active: the
  // connection is already TLS (implicit TLS). The first event is the greeting.
  SmtpDialogue(const SmtpClientConfig& cfg, const SmtpEnvelope& env, std::string_view message, bool tls_active);

  Action on_reply(const SmtpReply& reply);
  Action on_tls_ready();
  // The connection broke (closed, timeout, unreadable reply, TLS failure)
  // while waiting in the current step. After the message was accepted this
  // is still kDone.
  Action on_transport_error(std::string_view what, DeliveryOutcome outcome = DeliveryOutcome::kRetry);

  // What the session is waiting for, for messages: "RCPT TO <b@x>".
  std::string step() const;
  bool tls_active() const { return tls_active_; }

 private:
  enum class State {
    kGreeting,
    kEhlo,
    kHelo,
    kStartTls,
    kTlsHandshake,
    kEhloTls,
    kAuthPlain,
    kAuthLogin,
    kAuthLoginUser,
    kAuthLoginPass,
    kMail,
    kRcpt,
    kData,
    kBody,
    kQuit,
    kEnded,
  };

  Action after_ehlo(const SmtpReply* ehlo);
  Action send(State next, std::string bytes);
  Action fail(DeliveryOutcome outcome, std::string_view what, bool quit);
  Action fail_reply(const SmtpReply& reply);
  Action send_mail_from();

  const SmtpClientConfig& cfg_;
  const SmtpEnvelope& env_;
  std::string_view message_;
  bool tls_active_;
  State state_ = State::kGreeting;
  size_t rcpt_index_ = 0;
  bool accepted_ = false;  // the server answered 250 to the end of DATA
};

// The DATA payload: line endings normalised to CRLF (bare CR and bare LF
// both become CRLF), a '.' doubled at the start of each line, a final CRLF
// ensured, then the terminating ".\r\n".
std::string smtp_data_payload(std::string_view message);

}  // namespace llmon::notify
