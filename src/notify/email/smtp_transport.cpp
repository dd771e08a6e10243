// The SMTP connection over net's connect and stream, SMTP's wording of
// their failures; see smtp_transport.h.
#include "notify/email/smtp_transport.h"

#include <cstring>

#include "net/tcp_connect.h"
#include "net/tls_context.h"

namespace llmon::notify {

namespace {

constexpr net::IoWording kRead{"timed out waiting to read the reply", "read", "TLS read"};
constexpr net::IoWording kWrite{"timed out waiting to write", "write", "TLS write"};
constexpr net::TlsWording kTlsWording{"creating TLS session: ",
                                      "cannot verify against name ",
                                      "certificate verification failed: ",
                                      "connection closed during the TLS handshake",
                                      "",
                                      kRead,
                                      kWrite};
constexpr net::TlsSetupWording kSetupWording{"creating TLS context", "loading CA certificates ",
                                             "loading CA certificates ", "loading client certificate "};

std::string io_message(const net::IoError& e) {
  return net::describe(e, e.writing ? kWrite : kRead);
}

}  // namespace

Expected<std::unique_ptr<SmtpTransport>> SmtpTransport::connect(const std::string& host, uint16_t port,
                                                                int64_t timeout_ms) {
  auto fd = net::connect_tcp(host, port, deadline_after_ms(timeout_ms));
  if (fd) return std::unique_ptr<SmtpTransport>(new SmtpTransport(net::Stream(std::move(*fd))));
  const net::ConnectError& e = fd.error();
  if (e.resolve) return Status::error("resolving " + host + ": " + e.resolve->message());
  if (e.attempts.empty()) return Status::error("no addresses");
  const net::ConnectAttempt& last = e.attempts.back();
  switch (last.failure) {
    case net::ConnectAttempt::Failure::kTimeout:
      return Status::error("timed out after " + std::to_string(timeout_ms) + " ms");
    case net::ConnectAttempt::Failure::kSocket:
      return Status::error(std::string("socket: ") + std::strerror(last.error));
    case net::ConnectAttempt::Failure::kConnect:
      break;
  }
  return Status::error(std::strerror(last.error));
}

SmtpTransport::TlsError SmtpTransport::start_tls(const SmtpTlsOptions& opts, const std::string& host,
                                                 SteadyTime deadline) {
  auto ctx = net::TlsContext::create(opts);
  if (!ctx) return {net::describe(ctx.error(), kSetupWording), true};
  if (auto e = stream_.start_tls(**ctx, host, deadline)) return {net::describe(*e, kTlsWording), e->permanent()};
  return {};
}

Status SmtpTransport::write_all(std::string_view data, SteadyTime deadline) {
  if (auto e = stream_.write_all(data, deadline)) return Status::error(io_message(*e));
  return Status::ok();
}

Expected<std::string> SmtpTransport::read_some(SteadyTime deadline) {
  char buf[16384];
  auto n = stream_.read_some(buf, sizeof buf, deadline);
  if (!n) return Status::error(io_message(n.error()));
  return std::string(buf, *n);
}

}  // namespace llmon::notify
