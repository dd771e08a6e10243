// Kineto's daemon socket (ipc_server.h).
#include "trace/capture/ipc_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace llmon::trace::capture {

namespace {

constexpr size_t kMaxNameBytes = sizeof(sockaddr_un::sun_path) - 2;  // a NUL before and after
constexpr size_t kMaxDatagram = 64 * 1024;

}  // namespace

Expected<std::unique_ptr<IpcServer>> IpcServer::start(const std::string& name, ProcessTable& table,
                                                      const base::Clock& clock, base::Logger& log) {
  if (name.empty() || name.size() > kMaxNameBytes || name.find('\0') != std::string::npos)
    return Status::error("--trace.ipc-socket: \"" + name + "\" must be 1 to " + std::to_string(kMaxNameBytes) +
                         " bytes without NUL");
  std::unique_ptr<IpcServer> s(new IpcServer(name, table, clock, log));
  s->sock_.reset(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!s->sock_.valid()) return Status::error(std::string("socket(AF_UNIX, SOCK_DGRAM): ") + std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());  // "\0name\0", as Kineto addresses it
  socklen_t len = static_cast<socklen_t>(sizeof(sa_family_t) + name.size() + 2);
  if (::bind(s->sock_.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0)
    return Status::error("binding the abstract socket \"" + name + "\": " + std::strerror(errno) +
                         (errno == EADDRINUSE ? " (is dynolog or another llmon agent running?)" : ""));
  int on = 1;
  (void)::setsockopt(s->sock_.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  s->wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!s->wake_.valid()) return Status::error(std::string("eventfd: ") + std::strerror(errno));
  s->thread_ = std::thread([p = s.get()] { p->run(); });
  return s;
}

IpcServer::~IpcServer() {
  stop();
}

void IpcServer::stop() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
  thread_.join();
}

IpcCounters IpcServer::counters() const {
  return {received_.load(), malformed_.load(), replies_failed_.load(), configs_sent_.load()};
}

void IpcServer::run() {
  std::vector<char> buf(kMaxDatagram);
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  for (;;) {
    pollfd fds[2] = {{sock_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      log_.error("trace capture: poll on the IPC socket failed", {{"err", std::strerror(errno)}});
      return;
    }
    if (fds[1].revents) return;
    for (;;) {
      sockaddr_un peer{};
      iovec iov{buf.data(), buf.size()};
      msghdr m{};
      m.msg_name = &peer;
      m.msg_namelen = sizeof peer;
      m.msg_iov = &iov;
      m.msg_iovlen = 1;
      m.msg_control = control;
      m.msg_controllen = sizeof control;
      ssize_t n = ::recvmsg(sock_.get(), &m, MSG_DONTWAIT);
      if (n < 0) break;  // EAGAIN: drained
      ++received_;
      if (m.msg_flags & MSG_TRUNC) {
        ++malformed_;
        continue;
      }
      int32_t peer_pid = 0;
      for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
          ucred cred;
          std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
          peer_pid = cred.pid;
        }
      handle(std::string_view(buf.data(), static_cast<size_t>(n)), &peer, m.msg_namelen, peer_pid);
    }
  }
}

void IpcServer::handle(std::string_view datagram, const void* peer, unsigned peer_len, int32_t peer_pid) {
  auto msg = decode_message(datagram);
  std::string reply;
  int64_t now = clock_.now_ms();
  if (msg && msg->type == kContextType) {
    auto c = decode_context(msg->payload);
    if (c)
      reply = encode_context_reply(table_.on_context(*c, peer_pid, now));
    else
      msg = c.status();
  } else if (msg && msg->type == kRequestType) {
    auto r = decode_request(msg->payload);
    if (r) {
      std::string config = table_.on_request(*r, peer_pid, now);
      if (!config.empty()) {
        ++configs_sent_;
        log_.info("trace capture: config sent", {{"pid", std::to_string(r->pids[0])}});
      }
      reply = encode_config_reply(config);
    } else {
      msg = r.status();
    }
  } else if (msg) {
    msg = Status::error("unknown message type \"" + msg->type + "\"");
  }
  if (!msg) {
    ++malformed_;
    log_.debug("trace capture: datagram dropped", {{"err", msg.error()}});
    return;
  }
  if (peer_len <= sizeof(sa_family_t)) return;  // an unbound sender cannot be answered
  for (int attempt = 0; attempt < 3; ++attempt) {
    ssize_t n = ::sendto(sock_.get(), reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL,
                         static_cast<const sockaddr*>(peer), peer_len);
    if (n >= 0) return;
    if (errno != EAGAIN && errno != EWOULDBLOCK) break;
    ::usleep(1000);
  }
  ++replies_failed_;
}

}  // namespace llmon::trace::capture
