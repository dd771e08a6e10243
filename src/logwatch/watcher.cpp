#include "logwatch/watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "logwatch/positions_json.h"

namespace llmon::logwatch {

namespace {

constexpr uint32_t kWatchMask =
    IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB;

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A kernel record's wall-clock time: now, less how long ago (on the
// monotonic clock the kernel stamps records with) it was logged.
int64_t kmsg_wall_ms(int64_t now_ms, int64_t record_usec) {
  timespec ts{};
  if (::clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return now_ms;
  const int64_t mono_us = static_cast<int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
  if (record_usec <= 0 || record_usec > mono_us) return now_ms;
  return now_ms - (mono_us - record_usec) / 1000;
}

// The positions with saved_ms cleared: equal when nothing moved.
std::string positions_key(Positions p) {
  for (FileCursor& c : p.files) c.saved_ms = 0;
  return encode_positions(p);
}

}  // namespace

Watcher::Watcher(WatcherOptions options, const base::Clock& clock, base::Logger& log)
    : opt_(std::move(options)), clock_(clock), log_(log), tailer_(opt_.tailer, clock) {}

Watcher::~Watcher() {
  stop();
}

Expected<std::unique_ptr<Watcher>> Watcher::open(WatcherOptions options, const base::Clock& clock, base::Logger& log) {
  if (options.journal.dir.empty()) return Status::error("logwatch: no event directory");
  auto processor = Processor::build(options.rules);
  if (!processor) return processor.status();
  auto journal = EventJournal::open(options.journal, clock);
  if (!journal) return journal.status();
  std::unique_ptr<Watcher> w(new Watcher(std::move(options), clock, log));
  w->processor_ = std::move(*processor);
  w->journal_ = std::move(*journal);
  w->processor_->set_next_id(w->journal_->max_event_id() + 1);
  w->committed_positions_ = w->journal_->positions();
  auto positions = decode_positions(w->committed_positions_);
  if (!positions) {
    log.error("logwatch: the committed positions do not parse; files are read as new",
              {{"dir", w->opt_.journal.dir}, {"err", positions.error()}});
  } else {
    w->committed_key_ = positions_key(*positions);
    w->tailer_.restore(positions->files);
    w->kmsg_resume_ = positions->kmsg;
  }
  if (!w->opt_.kmsg_path.empty()) {
    auto boot = read_boot_id(w->opt_.boot_id_path);
    if (boot) {
      w->boot_id_ = *boot;
    } else {
      log.warn("logwatch: no boot id; the kernel log is read from its start", {{"err", boot.error()}});
    }
    w->processor_->declare_source("kmsg", true);
  }
  int in = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (in >= 0) {
    w->inotify_.reset(in);
  } else {
    log.warn("logwatch: no inotify; files are polled", {{"err", std::strerror(errno)}});
  }
  int ev = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (ev >= 0) w->wake_.reset(ev);
  w->publish(clock.now_ms());
  return w;
}

void Watcher::open_kmsg(const KmsgCursor& resume) {
  auto r = KmsgReader::open(opt_.kmsg_path, boot_id_, resume, &clock_);
  if (!r) {
    if (r.error() != kmsg_error_)
      log_.warn("logwatch: cannot read the kernel log; retrying", {{"path", opt_.kmsg_path}, {"err", r.error()}});
    kmsg_error_ = r.error();
    kmsg_next_open_ms_ = clock_.now_ms() + opt_.kmsg_retry_ms;
    return;
  }
  if (!kmsg_error_.empty()) log_.info("logwatch: reading the kernel log", {{"path", opt_.kmsg_path}});
  kmsg_error_.clear();
  kmsg_ = std::move(*r);
}

void Watcher::read_kmsg(int64_t now_ms, std::vector<Event>& out) {
  if (opt_.kmsg_path.empty()) return;
  if (!kmsg_) {
    if (now_ms < kmsg_next_open_ms_) return;
    open_kmsg(kmsg_resume_);
    if (!kmsg_) return;
  }
  std::vector<KmsgRecord> records;
  Status s = kmsg_->poll(records);
  for (const KmsgRecord& r : records) {
    const int64_t t = kmsg_->is_device() ? kmsg_wall_ms(now_ms, r.usec) : now_ms;
    if (kernel_hook_) kernel_hook_(r.text, t, boot_id_);
    processor_->line("kmsg", true, r.text, t, out);
  }
  if (!s) {
    if (s.message() != kmsg_error_) log_.warn("logwatch: reading the kernel log", {{"err", s.message()}});
    kmsg_error_ = s.message();
  } else {
    kmsg_error_.clear();
  }
}

void Watcher::declare_new_sources() {
  for (const FileCursor& c : tailer_.cursors()) {
    if (c.draining || declared_.count(c.path)) continue;
    declared_[c.path] = true;
    processor_->declare_source(c.path, false);
  }
}

void Watcher::run_pass(bool force_commit) {
  const int64_t now = clock_.now_ms();
  std::vector<Event> out;
  Status st = tailer_.poll([&](const std::string& path, std::string_view line) {
    if (!declared_.count(path)) {
      declared_[path] = true;
      processor_->declare_source(path, false);
    }
    processor_->line(path, false, line, now, out);
  });
  if (!st) log_.debug("logwatch: reading files", {{"err", st.message()}});
  declare_new_sources();
  read_kmsg(now, out);
  processor_->tick(now, out);
  for (Event& e : out) {
    if (enricher_) enricher_(e);
    pending_.push_back(std::move(e));
  }
  if (pending_.size() > opt_.max_pending_events) {
    const size_t drop = pending_.size() - opt_.max_pending_events;
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(drop));
    dropped_ += drop;
  }
  commit(now, force_commit);
  ++passes_;
  publish(now);
}

void Watcher::commit(int64_t now_ms, bool force) {
  Positions p;
  p.files = tailer_.cursors();
  p.kmsg = kmsg_ ? kmsg_->cursor() : kmsg_resume_;
  std::string key = positions_key(p);
  const bool moved = key != committed_key_;
  const bool due = !pending_.empty() || (moved && (force || now_ms - last_commit_ms_ >= opt_.positions_interval_ms));
  if (!due) return;
  std::string positions = encode_positions(p);
  Status s = journal_->commit(pending_, positions);
  if (!s) {
    ++commit_errors_;
    if (s.message() != last_commit_error_)
      log_.error("logwatch: cannot commit events; they are kept and retried",
                 {{"dir", opt_.journal.dir}, {"err", s.message()}, {"pending", std::to_string(pending_.size())}});
    last_commit_error_ = s.message();
    return;
  }
  if (!last_commit_error_.empty()) log_.info("logwatch: committing events again", {{"dir", opt_.journal.dir}});
  last_commit_error_.clear();
  last_commit_ms_ = now_ms;
  committed_positions_ = std::move(positions);
  committed_key_ = std::move(key);
  for (const Event& e : pending_) ++(e.repeat > 1 ? updates_ : events_);
  if (!pending_.empty()) {
    for (const EventListener& l : listeners_) l(pending_);
  }
  pending_.clear();
}

void Watcher::publish(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.files = tailer_.stats();
  stats_.kmsg_enabled = !opt_.kmsg_path.empty();
  if (kmsg_) stats_.kmsg = kmsg_->stats();
  stats_.kmsg_error = kmsg_error_;
  if (!kmsg_) stats_.kmsg.up = false;
  stats_.journal = journal_->stats();
  const uint64_t marker = processor_->lines() + declared_.size();
  if (marker != published_lines_ || stats_.matches.size() != processor_->counters().size()) {
    stats_.matches = processor_->counters();
    published_lines_ = marker;
  }
  if (processor_->metric_version() != published_metrics_) {
    if (published_metrics_ == UINT64_MAX) stats_.metric_info = processor_->metric_info();
    stats_.metric_series = processor_->metric_series();
    stats_.metric_parse_errors = processor_->metric_parse_errors();
    published_metrics_ = processor_->metric_version();
  }
  stats_.events = events_;
  stats_.updates = updates_;
  stats_.events_dropped = dropped_;
  stats_.commit_errors = commit_errors_;
  stats_.passes = passes_;
  stats_.last_pass_ms = now_ms;
  stats_.inotify = inotify_.get() >= 0;
}

WatcherStats Watcher::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

void Watcher::sync_watches() {
  if (inotify_.get() < 0) return;
  std::vector<std::string> dirs = tailer_.directories();
  if (kmsg_ && !kmsg_->is_device()) dirs.push_back(dir_of(opt_.kmsg_path));
  for (const std::string& d : dirs) {
    if (watches_.count(d)) continue;
    int wd = ::inotify_add_watch(inotify_.get(), d.c_str(), kWatchMask);
    if (wd >= 0) watches_[d] = wd;  // a directory not there yet is retried at the next pass
  }
}

void Watcher::wait() {
  pollfd fds[3];
  nfds_t n = 0;
  if (wake_.get() >= 0) fds[n++] = {wake_.get(), POLLIN, 0};
  if (inotify_.get() >= 0) fds[n++] = {inotify_.get(), POLLIN, 0};
  if (kmsg_ && kmsg_->is_device() && kmsg_->fd() >= 0) fds[n++] = {kmsg_->fd(), POLLIN, 0};
  int r = ::poll(fds, n, static_cast<int>(std::max<int64_t>(1, opt_.poll_interval_ms)));
  if (r <= 0) return;
  if (inotify_.get() >= 0) {
    alignas(inotify_event) char buf[16 * 1024];
    for (;;) {
      ssize_t got = ::read(inotify_.get(), buf, sizeof buf);
      if (got <= 0) break;
      for (ssize_t off = 0; off < got;) {
        const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
        if (ev->mask & IN_IGNORED) {  // the directory went away: watched again once it is back
          for (auto it = watches_.begin(); it != watches_.end(); ++it) {
            if (it->second == ev->wd) {
              watches_.erase(it);
              break;
            }
          }
        }
        off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      }
    }
  }
  if (wake_.get() >= 0) {
    uint64_t v = 0;
    (void)!::read(wake_.get(), &v, sizeof v);
  }
}

void Watcher::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(run_mu_);
        if (stop_) break;
      }
      run_pass(false);
      sync_watches();
      wait();
    }
  });
}

void Watcher::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    stop_ = true;
  }
  if (wake_.get() >= 0) {
    uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof one);
  }
  thread_.join();
  run_pass(true);  // what the last pass left, and the positions
}

}  // namespace llmon::logwatch
