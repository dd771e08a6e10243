// The scrape manager: every job of the scrape configuration, its targets
// and one scrape loop per active target, feeding the store.
//
// Per job, the target groups come from its static_configs, its
// file_sd_configs (files polled every second, reread when changed and every
// refresh_interval) and any extra Discoverer the agent adds (GPU processes,
// kubelet pods). Targets are built by build_target (target.h); a target
// whose labels and URL are unchanged keeps its loop across reloads and
// rediscoveries, a vanished one is stopped with staleness markers
// (TargetAppender::stop). A job over target_limit scrapes none of its
// targets, each reporting "target_limit exceeded".
//
// A loop scrapes at a fixed offset inside its interval, derived from the
// target's hash and the manager's seed (the host name), so targets spread
// their load as Prometheus's do; a scrape that starts within 2 ms of its
// slot is stamped with the slot time (Prometheus's timestamp tolerance),
// which keeps timestamps regular for the store's compression.
//
// Threads: one discovery thread (Discoverer::refresh runs on it without the
// manager's lock: probes may take a while), one per active target. status()
// is safe from any thread. stop() (or the destructor) joins them all; no staleness
// markers are written at shutdown (as Prometheus).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "scrape/page_parser.h"
#include "scrape/scrape_config.h"
#include "scrape/target.h"
#include "storage/storage.h"

namespace llmon::scrape {

// A source of target groups beyond the config file.
class Discoverer {
 public:
  virtual ~Discoverer() = default;
  // Called about once a second from the discovery thread; true when the
  // groups changed.
  virtual bool refresh(int64_t now_ms) = 0;
  virtual std::vector<TargetGroup> groups() const = 0;
  // Problems worth showing in /api/v1/targets (per source).
  virtual std::vector<std::string> errors() const { return {}; }
  // What was found and not made a target, and why (shown, not counted).
  virtual std::vector<std::string> notes() const { return {}; }
};

struct ManagerOptions {
  std::string user_agent = "llmon";
  uint64_t seed = 0;  // e.g. a hash of the host name
  int64_t discovery_poll_ms = 1000;
};

// One target as /api/v1/targets shows it.
struct TargetStatus {
  std::string job;
  std::string scrape_url;
  std::vector<model::Label> labels;
  std::vector<model::Label> discovered_labels;
  std::string health = "unknown";  // up, down, unknown
  std::string last_error;
  int64_t last_scrape_ms = 0;
  double last_duration_s = 0;
  int64_t interval_ms = 0;
  int64_t timeout_ms = 0;
  uint64_t last_samples = 0;
  std::map<std::string, FamilyMetadata, std::less<>> metadata;
};

struct ManagerStatus {
  std::vector<TargetStatus> active;
  std::vector<TargetStatus> dropped;  // job and discovered_labels only
  std::vector<std::string> discovery_errors;
  std::vector<std::string> discovery_notes;
};

class Manager {
 public:
  Manager(storage::Storage& storage, const base::Clock& clock, ManagerOptions opts);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Validates and applies a configuration (jobs added, changed, removed);
  // errors in relabel rules were caught by the parser, so this fails only
  // on an internal inconsistency. The first call starts the threads.
  Status apply(const ScrapeFile& file);
  // Adds a discoverer to a job that apply() configured (or a job of its own:
  // `cfg` gives its settings). Call before or after apply.
  void add_discoverer(const ScrapeConfig& cfg, std::shared_ptr<Discoverer> d);

  // `with_metadata` false: the targets without their metadata maps (cheap:
  // for counting targets by health every cycle).
  ManagerStatus status(bool with_metadata = true) const;
  void stop();

 private:
  struct Loop;
  struct Job;
  void discovery_thread();
  void sync_job(Job& job, int64_t now_ms);
  void run_loop(Loop* loop);

  storage::Storage& storage_;
  const base::Clock& clock_;
  ManagerOptions opts_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool dirty_ = false;
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  std::thread discovery_;
};

}  // namespace llmon::scrape
