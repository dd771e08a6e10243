// Host-name resolution bounded by a deadline. getaddrinfo(3) cannot be
// interrupted or given a timeout, so a name (not an IP literal) is looked up
// on a short-lived detached thread while the caller waits for the answer
// until the deadline. On timeout the caller returns "timed out" and abandons
// the lookup: the thread finishes it (the resolver's own timeouts end it,
// /etc/resolv.conf `timeout`/`attempts`), drops the answer and exits; the
// two share only a reference-counted slot, so nothing outlives its owner.
// Chosen over glibc's getaddrinfo_a: gai_cancel() cannot stop a lookup in
// progress either (EAI_NOTCANCELED), so its request block would have to be
// abandoned the same way, with more machinery and only on glibc. IP literals
// are converted on the calling thread (no thread, no DNS). Thread-safe.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "net/deadline.h"
#include "net/result.h"

struct addrinfo;

namespace llmon::net {

// One address to connect to (a TCP stream socket).
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = 0;    // AF_INET, AF_INET6
  int protocol = 0;  // for socket(2)
  const sockaddr* sockaddr_ptr() const { return reinterpret_cast<const sockaddr*>(&storage); }
  // "192.0.2.1:80", "[2001:db8::1]:443".
  std::string text() const;
};

struct ResolveError {
  int code = 0;            // getaddrinfo's EAI_*; 0 when timed_out
  bool timed_out = false;  // the deadline passed first
  // gai_strerror(code) ("Name or service not known"), or "timed out".
  std::string message() const;
};

// getaddrinfo's signature; the list it returns is freed with freeaddrinfo(3).
using LookupFn = std::function<int(const char* host, const char* service, const addrinfo* hints, addrinfo** res)>;

struct ResolveOptions {
  // AI_ADDRCONFIG: only the families the host has a (non-loopback) address of.
  bool only_configured_families = false;
  LookupFn lookup;  // empty: ::getaddrinfo (tests pass a slow or failing one)
};

// The addresses of host (a name or an IP literal without brackets) for TCP
// port `port`, in getaddrinfo's order; never empty on success.
Result<std::vector<Address>, ResolveError> resolve(const std::string& host, uint16_t port, Deadline deadline,
                                                   const ResolveOptions& opts = {});

}  // namespace llmon::net
