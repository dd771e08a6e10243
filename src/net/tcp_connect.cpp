// Non-blocking connect(2) polled against the deadline; see tcp_connect.h.
#include "net/tcp_connect.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace llmon::net {
namespace {

// Connects to one address before the deadline; the failure, if any, in `attempt`.
base::UniqueFd connect_one(const Address& a, Deadline deadline, ConnectAttempt& attempt) {
  attempt.address = a.text();
  base::UniqueFd fd(::socket(a.family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, a.protocol));
  if (!fd.valid()) {
    attempt.failure = ConnectAttempt::Failure::kSocket;
    attempt.error = errno;
    return {};
  }
  if (::connect(fd.get(), a.sockaddr_ptr(), a.length) == 0) return fd;
  if (errno != EINPROGRESS) {
    attempt.error = errno;
    return {};
  }
  if (wait_fd(fd.get(), POLLOUT, deadline) != WaitResult::kReady) {
    attempt.failure = ConnectAttempt::Failure::kTimeout;
    return {};
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len);
  if (so_error != 0) {
    attempt.error = so_error;
    return {};
  }
  return fd;
}

}  // namespace

Result<base::UniqueFd, ConnectError> connect_tcp(const std::string& host, uint16_t port, Deadline deadline,
                                                 const ConnectOptions& opts) {
  ConnectError err;
  auto addresses = resolve(host, port, deadline, ResolveOptions{opts.only_configured_families, opts.lookup});
  if (!addresses) {
    err.resolve = addresses.error();
    return err;
  }
  for (const Address& a : *addresses) {
    ConnectAttempt attempt;
    if (base::UniqueFd fd = connect_one(a, deadline, attempt); fd.valid()) return fd;
    err.attempts.push_back(std::move(attempt));
    if (std::chrono::steady_clock::now() >= deadline) break;  // the deadline is shared by all addresses
  }
  return err;
}

}  // namespace llmon::net
