// The failures of a connection's reads, writes and TLS handshake
// (stream.h) as values, and their wording: each caller names its steps
// ("sending the request", "read") and net composes the message, so HTTP,
// SMTP and `llmon query` keep their own texts over one implementation.
#pragma once

#include <string>
#include <string_view>

namespace llmon::net {

struct IoError {
  enum class Kind { kTimeout, kSystem, kPoll, kTls };
  Kind kind = Kind::kSystem;
  bool writing = false;  // the write side failed (else the read side)
  int error = 0;         // errno for kSystem and kPoll
  std::string detail;    // kTls: OpenSSL's error queue
};

// How a caller names a failed step: kTimeout reads `timed_out`, kSystem
// "<failed>: <strerror>", kTls "<tls_failed>: <OpenSSL's errors>", kPoll
// "poll: <strerror>".
struct IoWording {
  std::string_view timed_out;
  std::string_view failed;
  std::string_view tls_failed;
};
std::string describe(const IoError& e, const IoWording& words);

struct TlsHandshakeError {
  enum class Kind { kSetup, kName, kVerify, kClosed, kIo, kProtocol };
  Kind kind = Kind::kProtocol;
  // kSetup, kProtocol: OpenSSL's error queue (kSetup: the connection's SSL
  // object could not be made); kName: the name that cannot be verified;
  // kVerify: X509_verify_cert_error_string ("hostname mismatch").
  std::string detail;
  IoError io;  // kIo: the socket read or write that failed or timed out
  // A certificate or configuration problem that a retry cannot fix.
  bool permanent() const { return kind == Kind::kSetup || kind == Kind::kName || kind == Kind::kVerify; }
};

// How a caller words a TlsHandshakeError: the text before the detail of
// each kind (kName: before the quoted name; kClosed: the whole message),
// and the socket failures (kIo) by direction.
struct TlsWording {
  std::string_view setup;
  std::string_view name;
  std::string_view verify;
  std::string_view closed;
  std::string_view protocol;
  IoWording read;
  IoWording write;
};
std::string describe(const TlsHandshakeError& e, const TlsWording& words);

}  // namespace llmon::net
