// Module net: llmon's one outbound network client, depending on base and
// OpenSSL only. Layers, each its own header, each usable alone:
//   deadline.h     absolute deadlines, poll waits
//   resolver.h     name lookup bounded by a deadline (a lookup thread)
//   tcp_connect.h  TCP connect, one deadline over lookup and addresses
//   tls_context.h  the TLS client set-up (CA file or system store, client
//                  certificate, insecure_skip_verify), built once, shared
//   stream.h       one connection's bytes, plain or TLS (also STARTTLS),
//                  every read, write and handshake under a deadline
//   io_error.h     those failures as values, worded by each caller
//   url.h, http_request.h, http_response.h, base64.h   pure HTTP/1.1:
//                  URLs, request bytes, the incremental response parser
//   http_client.h  (this file) the HTTP/1.1 client over those
//   api_client.h   `llmon query`'s front end (agent URLs, its wording)
// Users: notify's Alertmanager notifier and webhook sender, the SMTP
// client (its connection), `llmon query` and `llmon alerts`; later
// remote_write and log forwarding. No global state.
//
// The client: one request per connection (Connection: close) to an http://
// or https:// URL, with a connect timeout (the name lookup included) and a
// total deadline, optional basic-auth / bearer headers, and a bounded
// response body (Content-Length, chunked or read-to-close). Not a general
// client: no redirects, no keep-alive, no proxies, no HTTP/2. A Client is
// immutable after construction apart from its lazily built TLS context, so
// one Client may be used from several threads at once. Nothing throws.
// Specs: RFC 3986 (URLs), RFC 9112 (HTTP/1.1 message syntax, chunked coding).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>

#include "base/status.h"
#include "net/http_request.h"
#include "net/http_response.h"
#include "net/result.h"
#include "net/stream.h"
#include "net/tcp_connect.h"
#include "net/tls_context.h"
#include "net/url.h"

namespace llmon::net::http {

// Why an exchange ended without a response: the stage, what the layer below
// reported (for callers that word it their way) and the client's wording.
struct Failure {
  enum class Stage { kTlsSetup, kConnect, kTlsHandshake, kSend, kReceive, kResponse };
  Stage stage = Stage::kConnect;
  // kTlsSetup: TlsSetupError; kConnect: ConnectError; kTlsHandshake:
  // TlsHandshakeError; kSend, kReceive: IoError; kResponse: ParseError.
  std::variant<TlsSetupError, ConnectError, TlsHandshakeError, IoError, ParseError> cause;
  size_t bytes_received = 0;  // of the response, before the failure
  // request()'s wording after "<METHOD> <url>: ": "resolving h: ...",
  // "connect 127.0.0.1:9: Connection refused", "timed out waiting for the
  // response (10000 ms)", "bad response: ...".
  std::string message;
};

class Client {
 public:
  explicit Client(ClientOptions opts);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The response, whatever its status; an error for anything that kept one
  // from arriving (lookup, connect, TLS, timeout, malformed response). Error
  // messages start with "<METHOD> <url without password>: ".
  Expected<Response> request(std::string_view method, const Url& url, std::string_view content_type,
                             std::string_view body) const;
  Expected<Response> post(const Url& url, std::string_view content_type, std::string_view body) const {
    return request("POST", url, content_type, body);
  }
  Expected<Response> get(const Url& url) const { return request("GET", url, {}, {}); }

  // request() with the failure as a value.
  Result<Response, Failure> exchange(std::string_view method, const Url& url, std::string_view content_type,
                                     std::string_view body) const;

  // Builds the TLS context now (loads the CA file); requests do it lazily.
  Status prepare_tls() const;
  const ClientOptions& options() const { return opts_; }

 private:
  Result<std::shared_ptr<const TlsContext>, TlsSetupError> tls_context() const;

  ClientOptions opts_;
  mutable std::mutex tls_mu_;
  mutable std::shared_ptr<const TlsContext> tls_;
};

}  // namespace llmon::net::http
