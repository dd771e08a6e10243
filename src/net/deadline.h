// Deadlines for blocking network calls: an absolute steady-clock time point
// (one deadline can bound several steps), the milliseconds left to it as
// poll(2) takes them, and a poll wait on one descriptor. No state.
#pragma once

#include <chrono>
#include <cstdint>

namespace llmon::net {

using Deadline = std::chrono::steady_clock::time_point;

inline Deadline deadline_after_ms(int64_t ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
}

// Milliseconds until `deadline`: 0 once it has passed, at most 2^30.
int ms_left(Deadline deadline);

enum class WaitResult { kReady, kTimeout, kError };  // kError: poll(2) failed, errno says why
// Waits until `events` (POLLIN, POLLOUT) or an error/hang-up is reported on
// fd, or the deadline passes; retries EINTR. Polls once even at the deadline.
WaitResult wait_fd(int fd, short events, Deadline deadline);

}  // namespace llmon::net
