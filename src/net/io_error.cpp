// Wording of connection failures; see io_error.h.
#include "net/io_error.h"

#include <cstring>

namespace llmon::net {

std::string describe(const IoError& e, const IoWording& words) {
  switch (e.kind) {
    case IoError::Kind::kTimeout:
      return std::string(words.timed_out);
    case IoError::Kind::kPoll:
      return std::string("poll: ") + std::strerror(e.error);
    case IoError::Kind::kTls:
      return std::string(words.tls_failed) + ": " + e.detail;
    case IoError::Kind::kSystem:
      break;
  }
  return std::string(words.failed) + ": " + std::strerror(e.error);
}

std::string describe(const TlsHandshakeError& e, const TlsWording& words) {
  using Kind = TlsHandshakeError::Kind;
  switch (e.kind) {
    case Kind::kSetup:
      return std::string(words.setup) + e.detail;
    case Kind::kName:
      return std::string(words.name) + "\"" + e.detail + "\"";
    case Kind::kVerify:
      return std::string(words.verify) + e.detail;
    case Kind::kClosed:
      return std::string(words.closed);
    case Kind::kIo:
      return describe(e.io, e.io.writing ? words.write : words.read);
    case Kind::kProtocol:
      break;
  }
  return std::string(words.protocol) + e.detail;
}

}  // namespace llmon::net
