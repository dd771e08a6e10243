// How the listener's accepted sockets carry bytes: plain TCP (the default) or
// a wrapper such as TLS (src/websec/tls_transport.h). The listener owns the
// fd; a Connection only reads and writes it and never closes it.
// Transport::open runs on the connection's thread (a TLS handshake happens
// there, never on the accept thread); implementations must be thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llmon::http {

// steady_clock milliseconds, the clock every deadline here uses.
int64_t steady_now_ms();

// Waits until fd is readable, the deadline passes or wake_fd fires (stop).
// True only when fd is readable (or hung up: the read then says so).
bool wait_fd(int fd, int wake_fd, int64_t deadline_ms, short events = 0x001 /*POLLIN*/);

class Connection {
 public:
  virtual ~Connection() = default;
  // Up to n bytes into buf, waiting until deadline_ms (steady_now_ms) or
  // the wake fd. >0: bytes read; 0: the peer closed or an error;
  // -1: the deadline passed or the listener is stopping.
  virtual long read(char* buf, size_t n, int64_t deadline_ms) = 0;
  // Writes head then body (may be null) whole; false when the peer is gone.
  virtual bool write(const std::string& head, const std::string* body) = 0;
  // True when the connection can carry a plain-text HTTP error written to
  // the raw fd (503 at accept, 400/408 answers): plain TCP only.
  virtual bool plain() const { return true; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Wraps an accepted socket; nullptr when the connection is to be dropped
  // (a failed handshake: the implementation logs or answers it itself).
  virtual std::unique_ptr<Connection> open(int fd, int wake_fd, int64_t deadline_ms) = 0;
  virtual bool plain() const { return true; }
};

// recv()/sendmsg() on the fd as it is.
class PlainTransport final : public Transport {
 public:
  std::unique_ptr<Connection> open(int fd, int wake_fd, int64_t deadline_ms) override;
};

}  // namespace llmon::http
