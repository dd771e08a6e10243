// Child process runner for the exec receiver; see exec_process.h.
#include "notify/senders/exec_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "base/unique_fd.h"

namespace llmon::notify {

namespace {

using SteadyClock = std::chrono::steady_clock;

int ms_until(SteadyClock::time_point t) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - SteadyClock::now()).count();
  if (left <= 0) return 0;
  return left > (1 << 30) ? (1 << 30) : static_cast<int>(left);
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Reads what is available; false once the stream is at EOF (or broken).
// `budget` bounds the bytes read in this call (a writer faster than us must
// not keep us here).
bool drain(int fd, std::string& out, bool& truncated, size_t limit, size_t budget = SIZE_MAX) {
  char buf[8192];
  for (size_t total = 0; total < budget;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) total += static_cast<size_t>(n);
    if (n > 0) {
      size_t room = out.size() < limit ? limit - out.size() : 0;
      size_t take = static_cast<size_t>(n) < room ? static_cast<size_t>(n) : room;
      out.append(buf, take);
      if (take < static_cast<size_t>(n)) truncated = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
  return true;
}

// True when the child has exited (left as a zombie so its pid, which is also
// the process group id, cannot be reused before we signal the group).
bool exited(pid_t pid) {
  siginfo_t si{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == ECHILD;
  return si.si_pid == pid;
}

}  // namespace

std::string ExecResult::describe(int64_t timeout_ms) const {
  if (!started) return "not started: " + error;
  if (timed_out)
    return "timeout after " + std::to_string(timeout_ms) + " ms (" +
           (killed ? "SIGKILL after grace period" : "SIGTERM") + ")";
  if (term_signal != 0) {
    const char* name = ::strsignal(term_signal);
    return "signal " + std::to_string(term_signal) + (name ? std::string(" (") + name + ")" : std::string());
  }
  std::string s = "exit " + std::to_string(exit_code);
  if (!error.empty()) s += " (" + error + ")";
  return s;
}

ExecResult run_process(const ExecRequest& req) {
  ExecResult res;
  const auto t0 = SteadyClock::now();
  auto finish = [&]() -> ExecResult& {
    res.duration_s = std::chrono::duration<double>(SteadyClock::now() - t0).count();
    return res;
  };
  if (req.argv.empty()) {
    res.error = "empty argv";
    return finish();
  }

  int in_pair[2], out_pipe[2], err_pipe[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    res.error = std::string("socketpair: ") + std::strerror(errno);
    return finish();
  }
  base::UniqueFd in_parent(in_pair[0]), in_child(in_pair[1]);
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    res.error = std::string("pipe: ") + std::strerror(errno);
    return finish();
  }
  base::UniqueFd out_parent(out_pipe[0]), out_child(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    res.error = std::string("pipe: ") + std::strerror(errno);
    return finish();
  }
  base::UniqueFd err_parent(err_pipe[0]), err_child(err_pipe[1]);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_child.get(), 0);
  posix_spawn_file_actions_adddup2(&fa, out_child.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_child.get(), 2);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawn_file_actions_addchdir_np(&fa, "/");
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv, envp;
  for (const auto& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : req.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, req.path.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  in_child.reset();
  out_child.reset();
  err_child.reset();
  if (rc != 0) {
    res.error = req.path + ": " + std::strerror(rc);
    return finish();
  }
  res.started = true;

  set_nonblocking(in_parent.get());
  set_nonblocking(out_parent.get());
  set_nonblocking(err_parent.get());
  base::UniqueFd pidfd(
      static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));  // -1 on old kernels: poll with a tick instead

  size_t in_off = 0;
  if (req.stdin_data.empty()) in_parent.reset();
  bool out_open = true, err_open = true;
  const auto deadline = t0 + std::chrono::milliseconds(req.timeout_ms);
  auto kill_at = SteadyClock::time_point::max();

  while (!exited(pid)) {
    auto now = SteadyClock::now();
    if (!res.timed_out && now >= deadline) {
      res.timed_out = true;
      ::kill(-pid, SIGTERM);
      kill_at = now + std::chrono::milliseconds(req.kill_grace_ms);
    }
    if (res.timed_out && !res.killed && now >= kill_at) {
      res.killed = true;
      ::kill(-pid, SIGKILL);
    }
    pollfd p[4];
    int np = 0;
    int in_i = -1, out_i = -1, err_i = -1;
    if (in_parent.get() >= 0) p[in_i = np++] = {in_parent.get(), POLLOUT, 0};
    if (out_open) p[out_i = np++] = {out_parent.get(), POLLIN, 0};
    if (err_open) p[err_i = np++] = {err_parent.get(), POLLIN, 0};
    if (pidfd.get() >= 0) p[np++] = {pidfd.get(), POLLIN, 0};
    int wait_ms = res.killed ? 50 : ms_until(res.timed_out ? kill_at : deadline);
    if (pidfd.get() < 0 && wait_ms > 20) wait_ms = 20;
    if (::poll(p, static_cast<nfds_t>(np), wait_ms) < 0 && errno != EINTR) {
      res.error = std::string("poll: ") + std::strerror(errno);
      ::kill(-pid, SIGKILL);
      break;
    }
    if (in_i >= 0 && (p[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::send(in_parent.get(), req.stdin_data.data() + in_off, req.stdin_data.size() - in_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) in_off += static_cast<size_t>(n);
      // Done, or the child closed its stdin (EPIPE): either way no more input.
      if (in_off == req.stdin_data.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) in_parent.reset();
    }
    if (out_i >= 0 && p[out_i].revents)
      out_open = drain(out_parent.get(), res.stdout_data, res.stdout_truncated, req.max_output_bytes);
    if (err_i >= 0 && p[err_i].revents)
      err_open = drain(err_parent.get(), res.stderr_data, res.stderr_truncated, req.max_output_bytes);
  }
  // Timed out: whatever the leader left behind in its group goes too.
  if (res.timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  pid_t w;
  do {
    w = ::waitpid(pid, &status, 0);
  } while (w < 0 && errno == EINTR);
  if (w != pid) {
    res.error = "the child was reaped by someone else; exit status unknown";
  } else if (WIFEXITED(status)) {
    res.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    res.term_signal = WTERMSIG(status);
  }
  // What the child wrote before it exited is in the pipes; take it without
  // waiting for descendants that may still hold them open.
  const size_t budget = req.max_output_bytes + (1 << 20);
  if (out_open) drain(out_parent.get(), res.stdout_data, res.stdout_truncated, req.max_output_bytes, budget);
  if (err_open) drain(err_parent.get(), res.stderr_data, res.stderr_truncated, req.max_output_bytes, budget);
  return finish();
}

}  // namespace llmon::notify
