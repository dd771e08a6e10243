// `llmon top`: the live terminal view (docs/top.md). Standalone: runs the
// collectors itself like `llmon snapshot` (one cycle per --top.interval, each
// summarised against the previous one), draws with top/'s layout and
// renderer, and reads keys and signals in one poll loop: stdin (raw mode,
// app/terminal.h) and a signalfd for SIGWINCH (resize: full redraw),
// SIGINT/SIGTERM/SIGHUP/SIGQUIT (quit, terminal restored) and SIGTSTP/SIGCONT
// (suspend and resume). The signals are blocked before any collector thread
// starts, so they reach only the signalfd. Logs go to stderr only when it is
// not the terminal (`llmon top 2>top.log`). With --url the data comes from
// a running agent instead (app/top_source.h); the loop is the same. Signals
// to processes (`k`) are sent here with kill(2), never through a shell, and
// only after the view's confirmation and may_signal()'s check.
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>

#include "app/agent_client.h"
#include "app/commands.h"
#include "app/health_setup.h"
#include "app/setup.h"
#include "app/terminal.h"
#include "app/top_procfs.h"
#include "app/top_source.h"
#include "summary/host_summary.h"
#include "top/keys.h"
#include "top/layout.h"
#include "top/renderer.h"

namespace llmon::app {
namespace {

using Steady = std::chrono::steady_clock;

// A lone ESC becomes the Escape key after this long without more bytes.
constexpr int kEscapeWaitMs = 30;

top::ColorMode color_mode(const std::string& flag) {
  if (flag == "256") return top::ColorMode::k256;
  if (flag == "16") return top::ColorMode::k16;
  if (flag == "none") return top::ColorMode::kNone;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  const char* colorterm = std::getenv("COLORTERM");
  std::string t = term ? term : "";
  if ((no_color && *no_color) || t.empty() || t == "dumb") return top::ColorMode::kNone;
  if (t.find("256") != std::string::npos || (colorterm && *colorterm)) return top::ColorMode::k256;
  return top::ColorMode::k16;
}

std::string clock_text() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

class TopLoop {
 public:
  TopLoop(RawTerminal& term, TopSource& source, std::string procfs, std::string passwd, int sig_fd, int64_t interval_ms,
          top::RenderOptions ro, top::DrawOptions d)
      : term_(term),
        source_(source),
        procfs_(std::move(procfs)),
        passwd_(std::move(passwd)),
        sig_fd_(sig_fd),
        interval_ms_(interval_ms),
        renderer_(ro),
        draw_(std::move(d)) {
    data_.my_ruid = ::getuid();
    data_.my_euid = ::geteuid();
  }

  void set_history(bool on) { view_.can_scroll_history = on; }

  int run() {
    collect();
    paint();
    auto next = Steady::now() + std::chrono::milliseconds(interval_ms_);
    while (!view_.quit) {
      auto now = Steady::now();
      if (now >= next) {
        collect();
        next += std::chrono::milliseconds(interval_ms_);
        if (next <= Steady::now()) next = Steady::now() + std::chrono::milliseconds(interval_ms_);
        paint();
        continue;
      }
      int wait_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next - now).count());
      if (keys_.pending()) wait_ms = std::min(wait_ms, kEscapeWaitMs);
      pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {sig_fd_, POLLIN, 0}};
      int n = ::poll(fds, 2, wait_ms);
      if (n < 0 && errno != EINTR) return 1;
      bool dirty = false;
      if (n > 0 && (fds[1].revents & POLLIN)) dirty |= on_signal();
      if (n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buf[4096];
        ssize_t r = ::read(STDIN_FILENO, buf, sizeof buf);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) break;  // the terminal went away
        if (r > 0) dirty |= on_keys(keys_.feed(std::string_view(buf, static_cast<size_t>(r))));
      } else if (n == 0 && keys_.pending()) {
        dirty |= on_keys(keys_.flush());
      }
      if (view_.signal_request) {
        send_signal();
        dirty = true;
      }
      if (view_.history_offset_s != shown_offset_s_ || view_.tree != shown_tree_ ||
          (view_.detail && view_.selected_pid != data_.detail.pid)) {
        collect();  // the moment shown or the process asked for changed: now, not at the next tick
        dirty = true;
      }
      if (dirty && !view_.quit) paint();
    }
    return 0;
  }

 private:
  static int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void collect() {
    TopWants w;
    w.selected_pid = view_.detail ? view_.selected_pid : "";
    w.history_offset_s = view_.history_offset_s;
    std::string msg = source_.refresh(wall_ms(), w, data_);
    shown_offset_s_ = view_.history_offset_s;
    shown_tree_ = view_.tree;
    // The tree view's parents and launchers: from this host's /proc.
    data_.ppid.clear();
    data_.launchers.clear();
    if (view_.tree && source_.local()) {
      std::vector<std::string> pids;
      for (const auto& p : data_.sum.gpus.processes) pids.push_back(p.pid);
      data_.ppid = read_parent_pids(procfs_, pids);
      data_.launchers = read_launchers(procfs_, passwd_, pids, data_.ppid);
    }
    if (!view_.detail) {
      data_.detail = top::ProcessDetail{};
    } else if (source_.local()) {
      data_.detail = read_process_detail(procfs_, view_.selected_pid);
    } else {
      data_.detail = top::ProcessDetail{};
      data_.detail.pid = view_.selected_pid;
      data_.detail.env_note = "not readable: the agent is on another host";
    }
    if (!result_.empty() && --result_frames_ > 0)
      draw_.message = result_;
    else
      draw_.message = msg, result_.clear();
  }

  // The confirmed signal: kill(2) when may_signal() allows it and the pid is
  // still the process that was selected (same start time).
  void send_signal() {
    const int sig = view_.signal_request;
    const std::string pid = view_.signal_pid;
    view_.signal_request = 0;
    view_.signal_pid.clear();
    const char* name = "?";
    for (const auto& c : top::signal_choices())
      if (c.number == sig) name = c.name;
    top::ProcessDetail now = read_process_detail(procfs_, pid);
    std::string why;
    if (!source_.local())
      why = "not sent: the agent is on another host";
    else if (!now.found)
      why = "not sent: pid " + pid + " is gone";
    else if (data_.detail.pid == pid && data_.detail.start_ticks && now.start_ticks != data_.detail.start_ticks)
      why = "not sent: pid " + pid + " is another process now";
    else
      why = top::may_signal(data_.my_ruid, data_.my_euid, now);
    if (why.empty()) {
      char* end = nullptr;
      long p = std::strtol(pid.c_str(), &end, 10);
      if (p <= 0 || *end) {
        why = "not sent: bad pid " + pid;
      } else if (::kill(static_cast<pid_t>(p), sig) != 0) {
        why = "kill(" + pid + ", SIG" + name + "): " + std::strerror(errno);
      } else {
        why = "sent SIG" + std::string(name) + " to " + pid;
      }
    }
    result_ = why;
    result_frames_ = 5;
    draw_.message = why;
  }

  void paint() {
    int cols = 80, rows = 24;
    term_.size(cols, rows);
    if (view_.redraw) {
      renderer_.invalidate();
      view_.redraw = false;
    }
    top::Screen screen(cols, rows);
    draw_.clock = clock_text();
    if (view_.detail && source_.local() && data_.detail.pid != view_.selected_pid)
      data_.detail = read_process_detail(procfs_, view_.selected_pid);
    area_ = top::draw(screen, data_, view_, draw_);
    term_.write_all(renderer_.render(screen));
  }

  bool on_keys(const std::vector<top::KeyEvent>& events) {
    bool dirty = false;
    for (const top::KeyEvent& e : events) {
      if (e.is_ctrl('z') && !view_.editing_filter) {
        suspend();
        dirty = true;
        continue;
      }
      auto shown = top::visible_processes(data_.sum.gpus, view_);
      if (view_.tree) top::arrange_tree(shown, data_.ppid, data_.launchers);
      dirty |= top::apply_key(view_, e, shown, area_);
      if (view_.quit) break;
    }
    return dirty;
  }

  // Returns whether the screen must be repainted.
  bool on_signal() {
    signalfd_siginfo si{};
    bool dirty = false;
    while (::read(sig_fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
      switch (si.ssi_signo) {
        case SIGWINCH:
          renderer_.invalidate();
          dirty = true;
          break;
        case SIGTSTP:
          suspend();
          dirty = true;
          break;
        case SIGCONT:
          renderer_.invalidate();
          dirty = true;
          break;
        default:
          view_.quit = true;  // SIGINT, SIGTERM, SIGHUP, SIGQUIT
      }
    }
    return dirty;
  }

  // Ctrl-Z: give the shell its terminal back, stop, and take it again.
  void suspend() {
    term_.restore();
    ::kill(::getpid(), SIGSTOP);
    term_.enter();
    renderer_.invalidate();
  }

  RawTerminal& term_;
  TopSource& source_;
  std::string procfs_;
  std::string passwd_;
  int sig_fd_;
  int64_t interval_ms_;
  top::Renderer renderer_;
  top::DrawOptions draw_;
  top::KeyParser keys_;
  top::ViewState view_;
  top::ProcessArea area_;
  top::TopData data_;
  int shown_offset_s_ = 0;
  bool shown_tree_ = false;
  std::string result_;  // the last signal's outcome, shown for a few refreshes
  int result_frames_ = 0;
};

}  // namespace

int run_top(const config::Settings& settings, std::FILE* err) {
  const std::string url = settings.get(config::flag::kUrl);
  std::optional<net::HttpUrl> agent;
  if (!url.empty()) {
    auto u = agent_url(settings);
    if (!u) {
      std::fprintf(err, "llmon top: %s\n", u.error().c_str());
      return 2;
    }
    agent = std::move(*u);
  }
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    std::fprintf(err, "llmon top: needs a terminal on stdin and stdout (for a one-shot view: llmon snapshot)\n");
    return 2;
  }
  // Before any thread: the collectors' threads inherit the mask, so these
  // signals reach only the signalfd.
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT}) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  int sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sig_fd < 0) {
    std::fprintf(err, "llmon top: signalfd: %s\n", std::strerror(errno));
    return 1;
  }

  config::Settings s = settings;
  // Xid events count between cycles here, as in the agent (not as in snapshot).
  auto level = base::parse_log_level(s.get(config::flag::kLogLevel));
  std::FILE* log_out = isatty(STDERR_FILENO) ? std::fopen("/dev/null", "w") : err;
  base::Logger log(level ? *level : base::LogLevel::kWarn, log_out ? log_out : err);
  base::SystemClock clock;
  health::HealthOptions ho;
  ho.boot_id = boot_id(s);
  auto health = std::make_shared<health::HealthTracker>(std::move(ho), clock);
  int rc = 0;
  {
    // Agent mode runs no collector.
    collector::Scheduler sched(
        agent ? std::vector<collector::NamedCollector>{} : enabled_collectors(s, clock, log, health), clock, log, 1000);
    int64_t interval_ms = s.get(config::flag::kTopInterval);
    if (interval_ms <= 0) interval_ms = 1000;
    top::RenderOptions ro;
    ro.ascii = s.get(config::flag::kTopAscii);
    ro.colors = color_mode(s.get(config::flag::kTopColors));
    top::DrawOptions d;
    d.ascii = ro.ascii;
    auto term = RawTerminal::open(STDIN_FILENO, STDOUT_FILENO, true);
    if (!term) {
      std::fprintf(err, "llmon top: %s\n", term.error().c_str());
      rc = 2;
    } else {
      const std::string procfs = s.get(config::flag::kPathProcfs);
      std::unique_ptr<TopSource> source = agent ? agent_source(*agent, url, interval_ms)  // the real interval
                                                : collector_source(sched, interval_ms);
      TopLoop loop(**term, *source, procfs, s.get(config::flag::kPathRootfs) + "/etc/passwd", sig_fd, interval_ms, ro,
                   std::move(d));
      loop.set_history(!url.empty());
      rc = loop.run();
      (*term)->restore();
    }
  }
  ::close(sig_fd);
  if (log_out && log_out != err) std::fclose(log_out);
  return rc;
}

}  // namespace llmon::app
