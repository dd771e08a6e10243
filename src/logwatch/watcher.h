// Watcher: the agent's log-watching thread. It tails the files of
// --logwatch.path (file_tailer.h) and the kernel log (kmsg_reader.h), runs
// every line through the rules (processor.h), and commits the events with
// the positions after them in one durable journal write (event_journal.h):
// a restarted agent continues where the committed events end, so it neither
// loses nor repeats a line (docs/logwatch.md, "The watcher").
//
// Wake-ups: inotify on the followed files' directories (and the kernel log's
// descriptor in device mode), so a line becomes an event within a few
// milliseconds; every poll_interval_ms a full poll regardless, which finds
// what inotify cannot report (a glob's directory created later, network
// filesystems, a failed inotify_init).
//
// Commits: a pass that produced events commits at once; positions alone
// (lines without matches) at most every positions_interval_ms. A failed
// commit (full disk) keeps its events pending, at most max_pending_events
// (the oldest beyond are dropped and counted), and is retried at the next
// pass with the positions of then; counters and the hooks go on regardless.
//
// After each successful commit the listeners get the committed events (new
// ones and updates of deduplicated bursts: same id, higher repeat), on the
// watcher's thread: they must not block (forwarders queue). The kernel hook
// sees every kernel-log record as it is read (GPU health); the enricher
// every event before it is committed.
//
// stats() is thread-safe (the collector reads it every cycle), and so is
// its copy of the log-derived metrics' series; everything
// else is for the owning thread, or the watcher's own once start()ed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "base/unique_fd.h"
#include "logwatch/event.h"
#include "logwatch/event_journal.h"
#include "logwatch/file_tailer.h"
#include "logwatch/kmsg_reader.h"
#include "logwatch/processor.h"
#include "logwatch/rule_file.h"

namespace llmon::logwatch {

struct WatcherOptions {
  TailerOptions tailer;   // patterns: --logwatch.path
  std::string kmsg_path;  // "" : no kernel log
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  JournalOptions journal;  // journal.dir is required
  std::vector<LogRule> rules;
  int64_t poll_interval_ms = 1000;
  int64_t positions_interval_ms = 1000;
  int64_t kmsg_retry_ms = 10'000;  // reopening a kernel log that could not be opened
  size_t max_pending_events = 10'000;
};

struct WatcherStats {
  TailerStats files;
  KmsgStats kmsg;
  bool kmsg_enabled = false;  // a kernel log is configured
  std::string kmsg_error;     // why it is not open ("" when it is)
  JournalStats journal;
  std::map<CounterKey, uint64_t> matches;
  // Log-derived metrics (the rules' metrics:), processor.h.
  std::map<std::string, MetricInfo> metric_info;
  std::map<MetricSeriesKey, MetricSeries> metric_series;
  std::map<std::string, uint64_t> metric_parse_errors;  // by rule
  uint64_t events = 0;          // events committed (new ones)
  uint64_t updates = 0;         // updates of deduplicated bursts committed
  uint64_t events_dropped = 0;  // pending events given up after failed commits
  uint64_t commit_errors = 0;
  uint64_t passes = 0;
  int64_t last_pass_ms = 0;  // liveness of the thread
  bool inotify = false;      // wake-ups by inotify (false: polling only)
};

class Watcher {
 public:
  using EventListener = std::function<void(const std::vector<Event>&)>;
  using KernelHook = std::function<void(std::string_view text, int64_t time_ms, const std::string& boot_id)>;
  // Adds to an event before it is committed (a kernel line's PCI address ->
  // the GPU's index and UUID).
  using Enricher = std::function<void(Event&)>;

  // Opens the journal (recovering its last commit), restores the committed
  // positions and builds the rules. Errors name the journal file or the rule.
  static Expected<std::unique_ptr<Watcher>> open(WatcherOptions options, const base::Clock& clock, base::Logger& log);
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Before start().
  void add_listener(EventListener l) { listeners_.push_back(std::move(l)); }
  void set_kernel_hook(KernelHook h) { kernel_hook_ = std::move(h); }
  void set_enricher(Enricher e) { enricher_ = std::move(e); }

  void start();
  // Wakes the thread, lets it finish its pass, then commits what is left.
  void stop();
  // One pass: read every source, process, commit when due (force: always
  // when anything changed). The thread's body; tests call it directly.
  void run_pass(bool force_commit = false);

  WatcherStats stats() const;
  const std::string& journal_dir() const { return opt_.journal.dir; }

 private:
  Watcher(WatcherOptions options, const base::Clock& clock, base::Logger& log);
  void open_kmsg(const KmsgCursor& resume);
  void read_kmsg(int64_t now_ms, std::vector<Event>& out);
  void declare_new_sources();
  void commit(int64_t now_ms, bool force);
  void sync_watches();
  void wait();
  void publish(int64_t now_ms);

  WatcherOptions opt_;
  const base::Clock& clock_;
  base::Logger& log_;
  std::unique_ptr<EventJournal> journal_;
  std::unique_ptr<Processor> processor_;
  FileTailer tailer_;
  std::unique_ptr<KmsgReader> kmsg_;
  KmsgCursor kmsg_resume_;
  std::string boot_id_;
  int64_t kmsg_next_open_ms_ = 0;
  std::string kmsg_error_;
  std::map<std::string, bool> declared_;
  std::vector<Event> pending_;
  std::string committed_positions_;
  std::string committed_key_;  // the committed positions without their saved_ms
  int64_t last_commit_ms_ = 0;
  std::string last_commit_error_;
  std::vector<EventListener> listeners_;
  KernelHook kernel_hook_;
  Enricher enricher_;

  base::UniqueFd inotify_;
  base::UniqueFd wake_;                 // eventfd: stop() wakes the thread
  std::map<std::string, int> watches_;  // directory -> watch descriptor

  // Counts kept by the watcher's thread; published into stats_ after each pass.
  uint64_t events_ = 0, updates_ = 0, dropped_ = 0, commit_errors_ = 0, passes_ = 0;
  uint64_t published_lines_ = UINT64_MAX;
  uint64_t published_metrics_ = UINT64_MAX;

  mutable std::mutex stats_mu_;
  WatcherStats stats_;

  std::mutex run_mu_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace llmon::logwatch
