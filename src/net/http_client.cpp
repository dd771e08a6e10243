// The HTTP client's exchange (see http_client.h): connect (tcp_connect.h),
// TLS (stream.h), the request bytes, then the parser fed until it is done.
#include "net/http_client.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace llmon::net::http {
namespace {

std::string connect_message(const ConnectError& e, const std::string& host) {
  if (e.resolve) return "resolving " + host + ": " + e.resolve->message();
  std::string out;
  for (const ConnectAttempt& a : e.attempts) {
    if (!out.empty()) out += "; ";
    switch (a.failure) {
      case ConnectAttempt::Failure::kSocket:
        out += std::string("socket: ") + std::strerror(a.error);
        break;
      case ConnectAttempt::Failure::kTimeout:
        out += "connect " + a.address + ": timed out";
        break;
      case ConnectAttempt::Failure::kConnect:
        out += "connect " + a.address + ": " + std::strerror(a.error);
        break;
    }
  }
  return out.empty() ? "no address to connect to" : out;
}

constexpr IoWording kHandshakeIo{"timed out in the TLS handshake", "TLS handshake", "TLS handshake"};
constexpr TlsWording kTlsWording{"setting up TLS: ",
                                 "TLS: cannot verify against name ",
                                 "TLS handshake: certificate verification failed: ",
                                 "TLS handshake: connection closed by peer",
                                 "TLS handshake: ",
                                 kHandshakeIo,
                                 kHandshakeIo};

}  // namespace

Client::Client(ClientOptions opts) : opts_(std::move(opts)) {}
Client::~Client() = default;

Result<std::shared_ptr<const TlsContext>, TlsSetupError> Client::tls_context() const {
  std::lock_guard lock(tls_mu_);
  if (!tls_) {
    auto ctx = TlsContext::create(opts_.tls_options());
    if (!ctx) return ctx.error();
    tls_ = std::move(*ctx);
  }
  return tls_;
}

Status Client::prepare_tls() const {
  auto ctx = tls_context();
  return ctx ? Status::ok() : Status::error(ctx.error().message());
}

Expected<Response> Client::request(std::string_view method, const Url& url, std::string_view content_type,
                                   std::string_view body) const {
  auto r = exchange(method, url, content_type, body);
  if (!r) return Status::error(std::string(method) + " " + url.redacted() + ": " + r.error().message);
  return std::move(*r);
}

Result<Response, Failure> Client::exchange(std::string_view method, const Url& url, std::string_view content_type,
                                           std::string_view body) const {
  using Stage = Failure::Stage;
  const auto start = std::chrono::steady_clock::now();
  const Deadline deadline = start + std::chrono::milliseconds(std::max(1, opts_.timeout_ms));
  const Deadline connect_deadline =
      std::min(deadline, start + std::chrono::milliseconds(std::max(1, opts_.connect_timeout_ms)));

  std::shared_ptr<const TlsContext> tls;
  if (url.is_tls()) {
    auto ctx = tls_context();
    if (!ctx) return Failure{Stage::kTlsSetup, ctx.error(), 0, ctx.error().message()};
    tls = std::move(*ctx);
  }
  auto fd = connect_tcp(url.host, url.port, connect_deadline, ConnectOptions{opts_.only_configured_families, {}});
  if (!fd) return Failure{Stage::kConnect, fd.error(), 0, connect_message(fd.error(), url.host)};
  Stream stream(std::move(*fd));
  if (tls)
    if (auto e = stream.start_tls(*tls, url.host, deadline))
      return Failure{Stage::kTlsHandshake, *e, 0, describe(*e, kTlsWording)};
  if (auto e = stream.write_all(serialize_request(method, url, content_type, body, opts_), deadline))
    return Failure{Stage::kSend, *e, 0,
                   describe(*e, {"timed out sending the request", "sending the request", "sending the request"})};

  ResponseParser parser(opts_.max_response_body_bytes, method == "HEAD");
  size_t received = 0;
  char buf[16384];
  for (;;) {
    auto n = stream.read_some(buf, sizeof buf, deadline);
    if (!n) {
      const IoError& e = n.error();
      const bool reset_ends =
          opts_.reset_ends_response && e.kind == IoError::Kind::kSystem && e.error == ECONNRESET && received > 0;
      if (!reset_ends) {
        const std::string timed_out =
            "timed out waiting for the response (" + std::to_string(opts_.timeout_ms) + " ms)";
        return Failure{Stage::kReceive, e, received,
                       describe(e, {timed_out, "reading the response", "reading the response"})};
      }
    }
    const size_t got = n ? *n : 0;
    received += got;
    const auto state = got == 0 ? parser.finish() : parser.feed(std::string_view(buf, got));
    if (state == ResponseParser::State::kError)
      return Failure{Stage::kResponse, parser.parse_error(), received, "bad response: " + parser.error()};
    if (state == ResponseParser::State::kDone) break;
  }
  return std::move(parser.response());
}

}  // namespace llmon::net::http
