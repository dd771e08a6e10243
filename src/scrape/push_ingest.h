// Pushed groups into the store (--web.enable-push, docs/scrape.md "Pushes"):
// a PushStore answering Pushgateway requests (push_request.h) and a thread
// that stores every pushed series at the agent's resolution, as Prometheus
// stores a scrape of the Pushgateway with honor_labels: true.
//
// What is stored:
//   * every `interval_ms` (on multiples of it, wall clock) and shortly after
//     each accepted push or delete (at most once per `min_gap_ms`), the
//     merged families (write_push_page) are appended through a
//     TargetAppender with honor_labels and no target labels: series keep the
//     pushed job and grouping labels; instance="" (set by the store on
//     metrics pushed without one) means no instance label, as in Prometheus;
//     histograms as _bucket/_sum/_count; push_time_seconds and
//     push_failure_time_seconds per group;
//   * no up/scrape_* series (a push is not a scrape);
//   * a deleted group's series (and those a PUT dropped) get staleness
//     markers at the next append, so queries stop seeing them at once.
// Persistence: with `persistence_file`, the store is loaded at start and
// saved (atomically) after an append whenever it changed, and at stop(); a
// file that cannot be read is renamed to FILE.corrupt (logged) and the store
// starts empty, so nothing is overwritten unseen.
//
// Threads: handle() from any connection thread; one appending thread
// between start() and stop().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "scrape/push_request.h"
#include "scrape/push_store.h"
#include "scrape/target_appender.h"
#include "storage/storage.h"

namespace llmon::scrape {

struct PushIngestOptions {
  int64_t interval_ms = 1000;
  int64_t min_gap_ms = 250;
  std::string persistence_file;  // "" : the store lives in memory only
};

// Totals since start, for llmon_push_* (app/push_setup.h).
struct PushIngestStats {
  std::map<int, uint64_t> requests_by_code;  // HTTP status -> requests
  uint64_t appends = 0;                      // pages stored
  uint64_t samples_appended = 0;             // of the last page
  uint64_t rejected = 0;                     // samples the store refused, all pages
  uint64_t persist_errors = 0;
  size_t groups = 0;
};

class PushIngest {
 public:
  PushIngest(storage::Storage& storage, const base::Clock& clock, base::Logger& log, PushIngestOptions opts);
  ~PushIngest();
  PushIngest(const PushIngest&) = delete;
  PushIngest& operator=(const PushIngest&) = delete;

  // Loads the persistence file (see above) and starts the thread.
  void start();
  // Stores the groups once more, saves, joins the thread. Idempotent.
  void stop();

  // One request (push_request.h); `body` already un-gzipped.
  PushReply handle(std::string_view method, std::string_view raw_path, std::string_view body,
                   std::string_view content_type);
  // Counts an answer the route gave itself (400 for a gzip body that does not decode).
  void count(int status);

  // Appends the store's page at t_ms now (the thread's step; tests call it
  // directly without start()).
  void append_once(int64_t t_ms);

  PushStore& store() { return store_; }
  PushIngestStats stats() const;

 private:
  void run();
  void changed();
  void persist();

  storage::Storage& storage_;
  const base::Clock& clock_;
  base::Logger& log_;
  PushIngestOptions opts_;
  PushStore store_;
  TargetAppender appender_;  // only the thread (or append_once) uses it
  std::string page_;
  uint64_t page_generation_ = ~uint64_t{0};
  uint64_t saved_generation_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool pending_ = false;  // a push changed the store since the last append
  PushIngestStats stats_;
  std::thread thread_;
};

}  // namespace llmon::scrape
