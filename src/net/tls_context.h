// The one TLS client set-up (OpenSSL 3): a context built from TlsOptions
// (Alertmanager's / Prometheus' tls_config) with TLS >= 1.2, peer
// verification against the system store or a CA file unless
// insecure_skip_verify, and an optional client certificate. Immutable once
// built, so one context may serve many connections on many threads at once
// (Stream::start_tls does the per-connection part: SNI and the name check).
// OpenSSL initialises itself once (its own once-init); nothing global here.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "net/result.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX, kept out of this header

namespace llmon::net {

struct TlsOptions {
  std::string ca_file;    // PEM bundle to trust instead of the system store
  std::string cert_file;  // client certificate chain (PEM), with key_file
  std::string key_file;
  std::string server_name;            // SNI and the name verified; empty: the host connected to
  bool insecure_skip_verify = false;  // no certificate or name check (testing only)
};

struct TlsSetupError {
  enum class Kind { kContext, kCaFile, kSystemStore, kClientCert };
  Kind kind = Kind::kContext;
  std::string file;    // kCaFile: ca_file; kClientCert: cert_file
  std::string detail;  // OpenSSL's error queue (openssl_errors())
  // "loading CA file /x.pem: ...", "loading the system CA store: ...",
  // "loading client certificate /c.pem: ...", "creating the TLS context: ...".
  std::string message() const;
};

// How a caller words a TlsSetupError: "<its kind's text><file>: <detail>".
struct TlsSetupWording {
  std::string_view context;
  std::string_view ca_file;
  std::string_view system_store;
  std::string_view client_cert;
};
std::string describe(const TlsSetupError& e, const TlsSetupWording& words);

// Drains OpenSSL's thread-local error queue into "e1; e2"; "unknown TLS
// error" when it is empty.
std::string openssl_errors();

class TlsContext {
 public:
  static Result<std::shared_ptr<const TlsContext>, TlsSetupError> create(const TlsOptions& opts);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  const TlsOptions& options() const { return opts_; }
  ssl_ctx_st* native() const { return ctx_; }

 private:
  TlsContext(TlsOptions opts, ssl_ctx_st* ctx) : opts_(std::move(opts)), ctx_(ctx) {}
  TlsOptions opts_;
  ssl_ctx_st* ctx_;
};

}  // namespace llmon::net
