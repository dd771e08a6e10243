// E-mail config, message assembly and the EmailSender; see email.h.
#include "notify/email/email.h"

#include <unistd.h>

#include <cctype>
#include <utility>

#include "base/strings.h"
#include "notify/email/email_mime.h"

namespace llmon::notify {

namespace {

bool reserved_header(std::string_view name) {
  if (name.size() >= 8 && base::iequals(name.substr(0, 8), "content-")) return true;
  for (std::string_view r : {"mime-version", "date", "message-id"})
    if (base::iequals(name, r)) return true;
  return false;
}

bool address_header(std::string_view name) {
  for (std::string_view r : {"from", "to", "cc", "reply-to", "sender"})
    if (base::iequals(name, r)) return true;
  return false;
}

bool valid_header_name(std::string_view name) {
  if (name.empty() || name.size() > 76) return false;
  for (char c : name)
    if (c <= ' ' || c >= 0x7f || c == ':') return false;
  return true;
}

bool has_control(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

std::string_view header_override(const EmailSenderConfig& cfg, std::string_view name) {
  for (const auto& [k, v] : cfg.headers)
    if (base::iequals(k, name)) return v;
  return {};
}

bool override_present(const EmailSenderConfig& cfg, std::string_view name) {
  for (const auto& h : cfg.headers)
    if (base::iequals(h.first, name)) return true;
  return false;
}

std::string sanitize_host(std::string h) {
  std::string out;
  for (char c : h)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') out += c;
  return out.empty() ? "localhost" : out;
}

}  // namespace

Status validate_email_config(const EmailSenderConfig& cfg) {
  if (cfg.to.empty()) return Status::error("email: to: at least one recipient is required");
  for (size_t i = 0; i < cfg.to.size(); ++i)
    if (auto a = parse_mail_address(cfg.to[i]); !a)
      return Status::error("email: to[" + std::to_string(i) + "]: " + a.error());
  if (cfg.from.empty()) return Status::error("email: from: required");
  if (auto a = parse_mail_address(cfg.from); !a) return Status::error("email: from: " + a.error());
  if (cfg.smarthost.empty()) return Status::error("email: smarthost: required (host:port)");
  if (auto hp = parse_host_port(cfg.smarthost); !hp) return Status::error("email: smarthost: " + hp.error());
  if (cfg.hello.empty()) return Status::error("email: hello: must not be empty");
  for (char c : cfg.hello)
    if (c <= ' ' || c >= 0x7f)
      return Status::error("email: hello: \"" + header_text(cfg.hello) + "\" is not a host name");
  if (cfg.auth_username.empty() && !cfg.auth_password.empty())
    return Status::error("email: auth_password is set without auth_username");
  if (cfg.tls.cert_file.empty() != cfg.tls.key_file.empty())
    return Status::error("email: tls_config: cert_file and key_file must be given together");
  if (cfg.timeout_ms <= 0 || cfg.connect_timeout_ms <= 0) return Status::error("email: timeouts must be positive");
  for (const auto& [k, v] : cfg.headers) {
    if (!valid_header_name(k)) return Status::error("email: headers: \"" + header_text(k) + "\" is not a header name");
    if (reserved_header(k)) return Status::error("email: headers: " + k + " is set by llmon and cannot be overridden");
    if (has_control(v)) return Status::error("email: headers: " + k + ": control characters (CR/LF) in the value");
  }
  return Status::ok();
}

Expected<std::string> render_email(const Notification& n, const EmailSenderConfig& cfg, const EmailEnvelopeInfo& info) {
  for (char c : info.boundary_token)
    if (!std::isalnum(static_cast<unsigned char>(c))) return Status::error("email: bad MIME boundary token");
  for (char c : info.message_id)
    if (c <= ' ' || c >= 0x7f) return Status::error("email: bad Message-ID");
  auto from = parse_mail_address(cfg.from);
  if (!from) return Status::error("email: from: " + from.error());
  std::string to;
  for (const auto& t : cfg.to) {
    auto a = parse_mail_address(t);
    if (!a) return Status::error("email: to: " + a.error());
    to += (to.empty() ? "" : ", ") + format_mail_address(*a);
  }
  const std::string boundary = "=_" + info.boundary_token;

  std::string m;
  m += header_line("Date", rfc5322_date(info.date_ms), true);
  m += override_present(cfg, "From") ? header_line("From", header_override(cfg, "From"), true)
                                     : header_line("From", format_mail_address(*from), true);
  m += override_present(cfg, "To") ? header_line("To", header_override(cfg, "To"), true) : header_line("To", to, true);
  m += header_line("Subject", override_present(cfg, "Subject") ? header_override(cfg, "Subject") : email_subject(n));
  m += header_line("Message-ID", info.message_id, true);
  for (const auto& [k, v] : cfg.headers) {
    if (base::iequals(k, "From") || base::iequals(k, "To") || base::iequals(k, "Subject")) continue;
    m += header_line(k, v, address_header(k));
  }
  m += "Auto-Submitted: auto-generated\r\n";
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n";
  m += "\r\n";
  m += "--" + boundary + "\r\n";
  m += "Content-Type: text/plain; charset=UTF-8\r\n";
  m += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  m += quoted_printable_encode(email_text_body(n));
  m += "\r\n--" + boundary + "\r\n";
  m += "Content-Type: text/html; charset=UTF-8\r\n";
  m += "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
  m += quoted_printable_encode(email_html_body(n));
  m += "\r\n--" + boundary + "--\r\n";
  return m;
}

Expected<std::unique_ptr<EmailSender>> EmailSender::create(EmailSenderConfig cfg, const base::Clock& clock,
                                                           std::string hostname) {
  if (Status s = validate_email_config(cfg); !s) return s;
  if (hostname.empty()) {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) == 0) hostname = buf;
  }
  return std::unique_ptr<EmailSender>(new EmailSender(std::move(cfg), clock, sanitize_host(std::move(hostname))));
}

EmailSender::EmailSender(EmailSenderConfig cfg, const base::Clock& clock, std::string hostname)
    : cfg_(std::move(cfg)), clock_(clock), hostname_(std::move(hostname)), rng_(std::random_device{}()) {
  HostPort hp = *parse_host_port(cfg_.smarthost);
  smtp_.host = hp.host;
  smtp_.port = hp.port;
  smtp_.implicit_tls = cfg_.implicit_tls.value_or(hp.port == 465);
  smtp_.require_tls = cfg_.require_tls;
  smtp_.tls = cfg_.tls;
  smtp_.hello = cfg_.hello;
  smtp_.auth_username = cfg_.auth_username;
  smtp_.auth_password = cfg_.auth_password;
  smtp_.auth_identity = cfg_.auth_identity;
  smtp_.allow_insecure_auth = cfg_.allow_insecure_auth;
  smtp_.connect_timeout_ms = cfg_.connect_timeout_ms;
  smtp_.io_timeout_ms = cfg_.timeout_ms;
  envelope_.from = parse_mail_address(cfg_.from)->address;
  for (const auto& t : cfg_.to) envelope_.to.push_back(parse_mail_address(t)->address);
}

Notification EmailSender::filtered(const Notification& n) const {
  if (cfg_.send_resolved) return n;
  Notification f = n;
  f.alerts.clear();
  for (const auto& a : n.alerts)
    if (!a.resolved_at(n.created_ms)) f.alerts.push_back(a);
  return f;
}

Expected<std::optional<std::string>> EmailSender::render(const Notification& n) {
  Notification f = filtered(n);
  if (f.alerts.empty()) return std::optional<std::string>();
  EmailEnvelopeInfo info;
  info.date_ms = clock_.now_ms();
  uint64_t r1, r2;
  {
    std::lock_guard<std::mutex> lock(rng_mu_);
    r1 = rng_();
    r2 = rng_();
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(r1));
  info.message_id = "<" + std::to_string(info.date_ms) + "." + std::to_string(counter_.fetch_add(1)) + "." + buf + "@" +
                    hostname_ + ">";
  std::snprintf(buf, sizeof buf, "llmon%016llx", static_cast<unsigned long long>(r2));
  info.boundary_token = buf;
  auto m = render_email(f, cfg_, info);
  if (!m) return m.status();
  return std::optional<std::string>(std::move(*m));
}

DeliveryResult EmailSender::send(const Notification& n) {
  auto m = render(n);
  if (!m) return DeliveryResult{DeliveryOutcome::kFailed, m.error()};
  if (!m->has_value()) return DeliveryResult{DeliveryOutcome::kDelivered, ""};  // only resolved alerts
  return smtp_send(smtp_, envelope_, **m);
}

}  // namespace llmon::notify
