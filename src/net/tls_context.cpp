// OpenSSL client context set-up; see tls_context.h.
#include "net/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace llmon::net {

std::string openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown TLS error" : out;
}

std::string describe(const TlsSetupError& e, const TlsSetupWording& words) {
  using Kind = TlsSetupError::Kind;
  const std::string_view text = e.kind == Kind::kCaFile        ? words.ca_file
                                : e.kind == Kind::kSystemStore ? words.system_store
                                : e.kind == Kind::kClientCert  ? words.client_cert
                                                               : words.context;
  return std::string(text) + e.file + ": " + e.detail;
}

std::string TlsSetupError::message() const {
  return describe(*this, {"creating the TLS context", "loading CA file ", "loading the system CA store",
                          "loading client certificate "});
}

TlsContext::~TlsContext() {
  SSL_CTX_free(ctx_);
}

Result<std::shared_ptr<const TlsContext>, TlsSetupError> TlsContext::create(const TlsOptions& opts) {
  using Kind = TlsSetupError::Kind;
  ERR_clear_error();
  SSL_CTX* raw = SSL_CTX_new(TLS_client_method());
  if (!raw) return TlsSetupError{Kind::kContext, "", openssl_errors()};
  std::shared_ptr<const TlsContext> ctx(new TlsContext(opts, raw));
  SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION);
  // A peer that closes without close_notify ends the stream (as HTTP/1.1 bodies read to the close need).
  SSL_CTX_set_options(raw, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(raw, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (opts.insecure_skip_verify) {
    SSL_CTX_set_verify(raw, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nullptr);
    if (!opts.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(raw, opts.ca_file.c_str(), nullptr) != 1)
        return TlsSetupError{Kind::kCaFile, opts.ca_file, openssl_errors()};
    } else if (SSL_CTX_set_default_verify_paths(raw) != 1) {
      return TlsSetupError{Kind::kSystemStore, "", openssl_errors()};
    }
  }
  if (!opts.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(raw, opts.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(raw, opts.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(raw) != 1)
      return TlsSetupError{Kind::kClientCert, opts.cert_file, openssl_errors()};
  }
  return ctx;
}

}  // namespace llmon::net
