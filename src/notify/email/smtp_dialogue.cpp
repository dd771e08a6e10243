// SMTP client state machine; see smtp_dialogue.h.
#include "notify/email/smtp_dialogue.h"

#include <cctype>
#include <utility>

#include "notify/email/email_mime.h"

namespace llmon::notify {

namespace {

bool has_mechanism(std::string_view list, std::string_view mech) {
  size_t pos = 0;
  while (pos < list.size()) {
    size_t sp = list.find(' ', pos);
    std::string_view m = list.substr(pos, sp == std::string_view::npos ? std::string_view::npos : sp - pos);
    if (m.size() == mech.size()) {
      bool eq = true;
      for (size_t i = 0; i < m.size(); ++i)
        eq = eq && std::toupper(static_cast<unsigned char>(m[i])) == static_cast<unsigned char>(mech[i]);
      if (eq) return true;
    }
    if (sp == std::string_view::npos) break;
    pos = sp + 1;
  }
  return false;
}

}  // namespace

std::string smtp_data_payload(std::string_view message) {
  std::string out;
  out.reserve(message.size() + message.size() / 32 + 8);
  bool line_start = true;
  for (size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < message.size() && message[i + 1] == '\n') ++i;
      out += "\r\n";
      line_start = true;
      continue;
    }
    if (line_start && c == '.') out += '.';
    out += c;
    line_start = false;
  }
  if (!line_start) out += "\r\n";
  out += ".\r\n";
  return out;
}

SmtpDialogue::SmtpDialogue(const SmtpClientConfig& cfg, const SmtpEnvelope& env, std::string_view message,
                           bool tls_active)
    : cfg_(cfg), env_(env), message_(message), tls_active_(tls_active) {}

std::string SmtpDialogue::step() const {
  switch (state_) {
    case State::kGreeting:
      return "greeting";
    case State::kEhlo:
      return "EHLO " + cfg_.hello;
    case State::kHelo:
      return "HELO " + cfg_.hello;
    case State::kStartTls:
      return "STARTTLS";
    case State::kTlsHandshake:
      return "TLS handshake";
    case State::kEhloTls:
      return "EHLO " + cfg_.hello + " (after STARTTLS)";
    case State::kAuthPlain:
      return "AUTH PLAIN";
    case State::kAuthLogin:
    case State::kAuthLoginUser:
    case State::kAuthLoginPass:
      return "AUTH LOGIN";
    case State::kMail:
      return "MAIL FROM <" + env_.from + ">";
    case State::kRcpt:
      return "RCPT TO <" + (rcpt_index_ < env_.to.size() ? env_.to[rcpt_index_] : std::string()) + ">";
    case State::kData:
      return "DATA";
    case State::kBody:
      return "end of DATA";
    case State::kQuit:
      return "QUIT";
    case State::kEnded:
      return "ended";
  }
  return "?";
}

SmtpDialogue::Action SmtpDialogue::send(State next, std::string bytes) {
  state_ = next;
  Action a;
  a.kind = Action::Kind::kSend;
  a.bytes = std::move(bytes);
  return a;
}

SmtpDialogue::Action SmtpDialogue::fail(DeliveryOutcome outcome, std::string_view what, bool quit) {
  Action a;
  a.kind = Action::Kind::kFail;
  a.result.outcome = outcome;
  a.result.error = "smtp " + cfg_.server() + ": " + step() + ": " + std::string(what);
  if (quit) a.bytes = "QUIT\r\n";
  state_ = State::kEnded;
  return a;
}

SmtpDialogue::Action SmtpDialogue::fail_reply(const SmtpReply& reply) {
  DeliveryOutcome o = DeliveryOutcome::kRetry;  // 4xx, and unexpected 2xx/3xx (a confused server)
  std::string what = reply.summary();
  if (reply.code >= 500) {
    o = DeliveryOutcome::kFailed;
  } else if (reply.code < 400) {
    what = "unexpected reply " + what;
  }
  return fail(o, what, true);
}

SmtpDialogue::Action SmtpDialogue::send_mail_from() {
  return send(State::kMail, "MAIL FROM:<" + env_.from + ">\r\n");
}

SmtpDialogue::Action SmtpDialogue::after_ehlo(const SmtpReply* ehlo) {
  SmtpExtensions ext = ehlo ? parse_ehlo_extensions(*ehlo) : SmtpExtensions{};
  if (!tls_active_ && cfg_.require_tls) {
    if (ext.count("STARTTLS")) return send(State::kStartTls, "STARTTLS\r\n");
    return fail(DeliveryOutcome::kFailed,
                ehlo ? "require_tls is set but the server does not advertise STARTTLS"
                     : "require_tls is set but the server does not support EHLO, so no STARTTLS",
                true);
  }
  if (auto it = ext.find("SIZE"); it != ext.end()) {
    uint64_t limit = 0;
    for (char c : it->second) {
      if (c < '0' || c > '9') break;
      limit = limit * 10 + static_cast<uint64_t>(c - '0');
      if (limit > (uint64_t{1} << 40)) break;
    }
    if (limit > 0 && message_.size() > limit)
      return fail(
          DeliveryOutcome::kFailed,
          "message of " + std::to_string(message_.size()) + " bytes exceeds the server's SIZE " + std::to_string(limit),
          true);
  }
  auto auth = ext.find("AUTH");
  // As Alertmanager: AUTH only when configured and offered by the server.
  if (cfg_.auth_username.empty() || auth == ext.end()) return send_mail_from();
  if (!tls_active_ && !cfg_.allow_insecure_auth) {
    state_ = State::kAuthPlain;  // for step() in the message
    return fail(DeliveryOutcome::kFailed,
                "refusing to send credentials over an unencrypted connection (use TLS or allow_insecure_auth)", true);
  }
  if (has_mechanism(auth->second, "PLAIN")) {
    std::string token = cfg_.auth_identity;
    token += '\0';
    token += cfg_.auth_username;
    token += '\0';
    token += cfg_.auth_password;
    return send(State::kAuthPlain, "AUTH PLAIN " + base64_encode(token) + "\r\n");
  }
  if (has_mechanism(auth->second, "LOGIN")) return send(State::kAuthLogin, "AUTH LOGIN\r\n");
  state_ = State::kAuthPlain;
  return fail(DeliveryOutcome::kFailed,
              "the server offers AUTH " + header_text(auth->second) + " but only PLAIN and LOGIN are supported", true);
}

SmtpDialogue::Action SmtpDialogue::on_reply(const SmtpReply& r) {
  switch (state_) {
    case State::kGreeting:
      if (r.code != 220) return fail_reply(r);
      return send(State::kEhlo, "EHLO " + cfg_.hello + "\r\n");
    case State::kEhlo:
      if (r.code == 250) return after_ehlo(&r);
      // RFC 5321 §3.2: a server without EHLO answers 5xx; fall back to HELO.
      if (r.code >= 500) return send(State::kHelo, "HELO " + cfg_.hello + "\r\n");
      return fail_reply(r);
    case State::kHelo:
      if (r.code != 250) return fail_reply(r);
      return after_ehlo(nullptr);
    case State::kStartTls: {
      if (r.code != 220) return fail_reply(r);
      state_ = State::kTlsHandshake;
      Action a;
      a.kind = Action::Kind::kStartTls;
      return a;
    }
    case State::kTlsHandshake:
      return fail(DeliveryOutcome::kRetry, "reply before the TLS handshake: " + r.summary(), false);
    case State::kEhloTls:
      if (r.code != 250) return fail_reply(r);
      return after_ehlo(&r);
    case State::kAuthPlain:
      if (r.code != 235) return fail_reply(r);
      return send_mail_from();
    case State::kAuthLogin:
      if (r.code != 334) return fail_reply(r);
      return send(State::kAuthLoginUser, base64_encode(cfg_.auth_username) + "\r\n");
    case State::kAuthLoginUser:
      if (r.code != 334) return fail_reply(r);
      return send(State::kAuthLoginPass, base64_encode(cfg_.auth_password) + "\r\n");
    case State::kAuthLoginPass:
      if (r.code != 235) return fail_reply(r);
      return send_mail_from();
    case State::kMail:
      if (r.code != 250) return fail_reply(r);
      if (env_.to.empty()) return fail(DeliveryOutcome::kFailed, "no recipients", true);
      rcpt_index_ = 0;
      return send(State::kRcpt, "RCPT TO:<" + env_.to[0] + ">\r\n");
    case State::kRcpt:
      if (r.code != 250 && r.code != 251) return fail_reply(r);
      if (++rcpt_index_ < env_.to.size()) return send(State::kRcpt, "RCPT TO:<" + env_.to[rcpt_index_] + ">\r\n");
      return send(State::kData, "DATA\r\n");
    case State::kData:
      if (r.code != 354) return fail_reply(r);
      return send(State::kBody, smtp_data_payload(message_));
    case State::kBody:
      if (r.code != 250) return fail_reply(r);
      accepted_ = true;
      return send(State::kQuit, "QUIT\r\n");
    case State::kQuit:
    case State::kEnded: {
      if (!accepted_) return fail(DeliveryOutcome::kRetry, "internal: reply after the session ended", false);
      state_ = State::kEnded;
      Action a;
      a.kind = Action::Kind::kDone;
      return a;
    }
  }
  return fail(DeliveryOutcome::kRetry, "internal: unknown state", false);
}

SmtpDialogue::Action SmtpDialogue::on_tls_ready() {
  if (state_ != State::kTlsHandshake) return fail(DeliveryOutcome::kRetry, "internal: TLS ready out of order", false);
  tls_active_ = true;
  return send(State::kEhloTls, "EHLO " + cfg_.hello + "\r\n");
}

SmtpDialogue::Action SmtpDialogue::on_transport_error(std::string_view what, DeliveryOutcome outcome) {
  if (accepted_) {
    // The server has taken the message; a lost QUIT reply does not matter.
    state_ = State::kEnded;
    Action a;
    a.kind = Action::Kind::kDone;
    return a;
  }
  return fail(outcome, what, false);
}

}  // namespace llmon::notify
