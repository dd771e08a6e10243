// The socket side of the gRPC client (unix_grpc.h).
#include "kube/unix_grpc.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/unique_fd.h"

namespace llmon::kube {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Waits for `events` on fd until the deadline: 1 ready, 0 timed out, -1 error.
int wait_fd(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    const int64_t left = deadline_ms - now_ms();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return 0;
    return 1;
  }
}

}  // namespace

Expected<std::string> unix_grpc_call(const std::string& path, const GrpcRequest& request, const UnixGrpcOptions& opts) {
  const int64_t deadline = now_ms() + opts.timeout_ms;
  auto err = [&](const std::string& why) { return Status::error(path + ": " + why); };
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return err("socket path too long");
  std::memcpy(addr.sun_path, path.data(), path.size());

  base::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return err(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int e = errno;
    if (e == ENOENT) return Status::no_data(path + ": no such socket");
    if (e != EINPROGRESS && e != EAGAIN) return err(std::string("connect: ") + std::strerror(e));
    if (wait_fd(fd.get(), POLLOUT, deadline) <= 0) return err("connect timed out");
    int so = 0;
    socklen_t len = sizeof so;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so, &len);
    if (so != 0) return err(std::string("connect: ") + std::strerror(so));
  }

  GrpcUnaryCall call(request, opts.max_response_bytes);
  char buf[16384];
  for (;;) {
    std::string out = call.take_output();
    size_t sent = 0;
    while (sent < out.size()) {
      const ssize_t n = ::send(fd.get(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (wait_fd(fd.get(), POLLOUT, deadline) <= 0) return err("write timed out");
        continue;
      }
      // The server may close after answering (a GOAWAY); what it sent is still read.
      if (call.done()) break;
      return err(std::string("write: ") + std::strerror(errno));
    }
    if (call.done()) break;
    const int w = wait_fd(fd.get(), POLLIN, deadline);
    if (w == 0) return err("no answer within " + std::to_string(opts.timeout_ms) + " ms");
    if (w < 0) return err(std::string("poll: ") + std::strerror(errno));
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return err(std::string("read: ") + std::strerror(errno));
    Status st = n == 0 ? call.end_of_input() : call.feed(std::string_view(buf, static_cast<size_t>(n)));
    if (!st) return err(st.message());
  }
  auto r = call.result();
  if (!r) return err(r.error());
  return r;
}

}  // namespace llmon::kube
