// Deadline arithmetic and poll waits; see deadline.h.
#include "net/deadline.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace llmon::net {

int ms_left(Deadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  return left > 0 ? static_cast<int>(std::min<int64_t>(left, int64_t{1} << 30)) : 0;
}

WaitResult wait_fd(int fd, short events, Deadline deadline) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int rc = ::poll(&p, 1, ms_left(deadline));
    if (rc > 0) return WaitResult::kReady;
    if (rc == 0) return WaitResult::kTimeout;
    if (errno != EINTR) return WaitResult::kError;
  }
}

}  // namespace llmon::net
