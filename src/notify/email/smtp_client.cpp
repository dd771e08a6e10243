// SMTP send driver: the transport carries bytes, the dialogue decides what
// to say; see smtp_client.h.
#include "notify/email/smtp_client.h"

#include <algorithm>

#include "base/strings.h"
#include "notify/email/smtp_dialogue.h"
#include "notify/email/smtp_reply.h"
#include "notify/email/smtp_transport.h"

namespace llmon::notify {

std::string SmtpClientConfig::server() const {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Expected<HostPort> parse_host_port(std::string_view s) {
  HostPort hp;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return Status::error("\"" + std::string(s) + "\": expected [address]:port");
    hp.host = std::string(s.substr(1, close - 1));
    port = s.substr(close + 2);
  } else {
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos) return Status::error("\"" + std::string(s) + "\": missing port");
    hp.host = std::string(s.substr(0, colon));
    if (hp.host.find(':') != std::string::npos)
      return Status::error("\"" + std::string(s) + "\": IPv6 addresses need brackets, [address]:port");
    port = s.substr(colon + 1);
  }
  if (hp.host.empty()) return Status::error("\"" + std::string(s) + "\": missing host");
  for (char c : hp.host)
    if (static_cast<unsigned char>(c) <= ' ' || c == '/' || c == '@')
      return Status::error("\"" + std::string(s) + "\": invalid host");
  auto p = base::parse_u64(port);
  if (!p || *p == 0 || *p > 65535) return Status::error("\"" + std::string(s) + "\": invalid port");
  hp.port = static_cast<uint16_t>(*p);
  return hp;
}

namespace {

DeliveryResult failed(DeliveryOutcome o, std::string msg) {
  return DeliveryResult{o, std::move(msg)};
}

}  // namespace

DeliveryResult smtp_send(const SmtpClientConfig& cfg, const SmtpEnvelope& env, std::string_view message) {
  const std::string server = cfg.server();
  if (env.from.empty() || env.to.empty())
    return failed(DeliveryOutcome::kFailed, "smtp " + server + ": no sender or no recipients");
  // The addresses go inside "MAIL FROM:<...>" / "RCPT TO:<...>": no way out of the brackets.
  auto bad_address = [](const std::string& a) {
    for (char c : a)
      if (static_cast<unsigned char>(c) <= ' ' || c == '<' || c == '>' || c == 0x7f) return true;
    return false;
  };
  if (cfg.hello.empty() || bad_address(cfg.hello))
    return failed(DeliveryOutcome::kFailed, "smtp " + server + ": invalid hello name");
  if (bad_address(env.from)) return failed(DeliveryOutcome::kFailed, "smtp " + server + ": invalid sender address");
  for (const auto& a : env.to)
    if (bad_address(a)) return failed(DeliveryOutcome::kFailed, "smtp " + server + ": invalid recipient address");

  auto conn = SmtpTransport::connect(cfg.host, cfg.port, cfg.connect_timeout_ms);
  if (!conn) return failed(DeliveryOutcome::kRetry, "smtp " + server + ": connect: " + conn.error());
  SmtpTransport& t = **conn;
  if (cfg.implicit_tls) {
    auto e = t.start_tls(cfg.tls, cfg.host, deadline_after_ms(cfg.io_timeout_ms));
    if (!e.message.empty())
      return failed(e.permanent ? DeliveryOutcome::kFailed : DeliveryOutcome::kRetry,
                    "smtp " + server + ": TLS handshake: " + e.message);
  }

  SmtpDialogue d(cfg, env, message, cfg.implicit_tls);
  SmtpReplyParser parser;
  auto read_reply = [&]() -> Expected<SmtpReply> {
    SteadyTime deadline = deadline_after_ms(cfg.io_timeout_ms);
    while (true) {
      auto r = parser.next();
      if (!r) return Status::error("unreadable reply: " + r.error());
      if (r->has_value()) return std::move(**r);
      auto chunk = t.read_some(deadline);
      if (!chunk) return Status::error(chunk.error() + " (timeout " + std::to_string(cfg.io_timeout_ms) + " ms)");
      if (chunk->empty()) return Status::error("connection closed by the server");
      parser.feed(*chunk);
    }
  };

  while (true) {
    auto reply = read_reply();
    SmtpDialogue::Action act = reply ? d.on_reply(*reply) : d.on_transport_error(reply.error());
    while (true) {
      using Kind = SmtpDialogue::Action::Kind;
      if (act.kind == Kind::kSend) {
        Status w = t.write_all(act.bytes, deadline_after_ms(cfg.io_timeout_ms));
        if (!w) {
          act = d.on_transport_error(w.message());
          continue;
        }
        break;  // read the next reply
      }
      if (act.kind == Kind::kStartTls) {
        if (parser.buffered() != 0) {
          act = d.on_transport_error(
              "the server sent data after its 220 reply to STARTTLS (refusing: possible injection)",
              DeliveryOutcome::kFailed);
          continue;
        }
        auto e = t.start_tls(cfg.tls, cfg.host, deadline_after_ms(cfg.io_timeout_ms));
        if (!e.message.empty()) {
          act = d.on_transport_error(e.message, e.permanent ? DeliveryOutcome::kFailed : DeliveryOutcome::kRetry);
          continue;
        }
        act = d.on_tls_ready();
        continue;
      }
      if (act.kind == Kind::kDone) return DeliveryResult{DeliveryOutcome::kDelivered, ""};
      // kFail: a polite QUIT when the session still takes commands.
      if (!act.bytes.empty())
        (void)t.write_all(act.bytes, deadline_after_ms(std::min<int64_t>(cfg.io_timeout_ms, 1000)));
      return act.result;
    }
  }
}

}  // namespace llmon::notify
