#include "http/transport.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace llmon::http {

int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool wait_fd(int fd, int wake_fd, int64_t deadline_ms, short events) {
  for (;;) {
    int64_t left = deadline_ms - steady_now_ms();
    if (left <= 0) return false;
    pollfd p[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
    int r = ::poll(p, 2, static_cast<int>(left));
    if (r > 0) return p[1].revents == 0;
    if (r < 0 && errno != EINTR) return false;
  }
}

namespace {

class PlainConnection final : public Connection {
 public:
  PlainConnection(int fd, int wake_fd) : fd_(fd), wake_fd_(wake_fd) {}

  long read(char* buf, size_t n, int64_t deadline_ms) override {
    for (;;) {
      if (!wait_fd(fd_, wake_fd_, deadline_ms)) return -1;
      ssize_t r = ::recv(fd_, buf, n, 0);
      if (r < 0 && errno == EINTR) continue;
      return r < 0 ? 0 : static_cast<long>(r);
    }
  }

  bool write(const std::string& head, const std::string* body) override {
    iovec iov[2];
    size_t off_head = 0, off_body = 0;
    size_t body_len = body ? body->size() : 0;
    while (off_head < head.size() || off_body < body_len) {
      int n = 0;
      if (off_head < head.size()) {
        iov[n].iov_base = const_cast<char*>(head.data() + off_head);
        iov[n].iov_len = head.size() - off_head;
        ++n;
      }
      if (off_body < body_len) {
        iov[n].iov_base = const_cast<char*>(body->data() + off_body);
        iov[n].iov_len = body_len - off_body;
        ++n;
      }
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<size_t>(n);
      ssize_t w = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      size_t sent = static_cast<size_t>(w);
      size_t h = std::min(sent, head.size() - off_head);
      off_head += h;
      off_body += sent - h;
    }
    return true;
  }

 private:
  int fd_;
  int wake_fd_;
};

}  // namespace

std::unique_ptr<Connection> PlainTransport::open(int fd, int wake_fd, int64_t) {
  return std::make_unique<PlainConnection>(fd, wake_fd);
}

}  // namespace llmon::http
