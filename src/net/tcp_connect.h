// Outbound TCP connection with one deadline that bounds the name lookup
// (resolver.h) and every address tried after it. Addresses are tried in
// the resolver's order until one connects or the deadline passes; each
// failure is kept so callers can word it their way. The socket comes back
// connected, non-blocking and close-on-exec. Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "net/deadline.h"
#include "net/resolver.h"
#include "net/result.h"

namespace llmon::net {

struct ConnectAttempt {
  enum class Failure { kSocket, kConnect, kTimeout };
  std::string address;  // Address::text(): "192.0.2.1:25", "[::1]:9093"
  Failure failure = Failure::kConnect;
  int error = 0;  // errno for kSocket and kConnect
};

struct ConnectError {
  std::optional<ResolveError> resolve;   // set when the lookup failed (no attempts then)
  std::vector<ConnectAttempt> attempts;  // in the order tried
};

struct ConnectOptions {
  bool only_configured_families = false;  // ResolveOptions::only_configured_families (AI_ADDRCONFIG)
  LookupFn lookup;                        // ResolveOptions::lookup
};

Result<base::UniqueFd, ConnectError> connect_tcp(const std::string& host, uint16_t port, Deadline deadline,
                                                 const ConnectOptions& opts = {});

}  // namespace llmon::net
