// The persistent delivery queue: every notification (a webhook / email /
// exec Notification, an Alertmanager batch) becomes a job appended to
// <dir>/queue.log (format: queue_file.h) before anything is sent, and stays
// there until it is delivered, fails permanently, or expires. One worker
// thread per registered target sends that target's jobs in order (FIFO,
// one at a time), retrying kRetry outcomes with exponential backoff and
// jitter; kFailed is never retried. On open, unacknowledged jobs are queued
// again, so a notification survives an agent restart; a torn or corrupt
// file is reported and salvaged, never a reason not to start.
// Delivery is at least once: a crash between a send and its ack record sends
// that job again after the restart.
// Not a router: the caller names the target of each job. The queue owns its
// file and threads; all public methods are thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
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
#include "notify/delivery/queue_file.h"
#include "notify/notification.h"

namespace llmon::notify {

// What a target's deliver() sees; the views stay valid for the call.
struct QueuedJob {
  uint64_t id = 0;
  std::string_view target;
  std::string_view kind;
  std::string_view payload;
  int64_t created_ms = 0;
  uint32_t attempts = 0;  // failed attempts before this one
};

// Where jobs go. deliver() runs on the target's worker thread, must time out
// on its own and never throw.
class DeliveryTarget {
 public:
  virtual ~DeliveryTarget() = default;
  virtual DeliveryResult deliver(const QueuedJob& job) = 0;
  // Called (on a queue thread, outside the queue lock) when a job of this
  // target is dropped unsent: too old, or evicted when the queue was full.
  virtual void dropped(const QueuedJob& /*job*/, std::string_view /*reason*/) {}
};

// Adapts a Sender: the job payload is encode_notification() bytes (see
// notification_codec.h); a payload that does not decode fails permanently.
std::shared_ptr<DeliveryTarget> sender_target(std::shared_ptr<Sender> sender);

struct BackoffPolicy {
  int64_t initial_ms = 1000;
  double factor = 2.0;
  int64_t max_ms = 5 * 60 * 1000;
  double jitter = 0.2;  // the delay is scaled by a factor in [1 - jitter, 1 + jitter)
};

// Delay before the next try after `failed_attempts` (>= 1) failures, for a
// uniform r in [0, 1): initial * factor^(failed_attempts-1), jittered, then
// capped at max_ms; never below 1 ms.
int64_t backoff_delay_ms(const BackoffPolicy& policy, uint32_t failed_attempts, double r);

enum class FsyncPolicy {
  kAlways,  // fdatasync after each job append: enqueue() returns once the job is on disk.
            // Acks and attempts are not synced on their own (losing one re-sends, never loses).
  kNever,   // leave it to the kernel (tests, tmpfs)
};

struct DeliveryQueueOptions {
  std::string dir;  // created if missing; holds queue.log, queue.lock, queue.log.corrupt
  FsyncPolicy fsync = FsyncPolicy::kAlways;
  BackoffPolicy backoff;
  int64_t max_age_ms = 24 * 3600 * 1000;  // jobs older than this are dropped unsent
  size_t max_jobs = 100000;               // beyond this the oldest job is evicted
  size_t max_payload_bytes = 16u << 20;
  size_t compact_min_bytes = 1u << 20;  // compact once the file is this big and under 1/4 live
  size_t recent_failures = 32;          // failures kept for recent_failures()
  int max_poll_ms = 250;                // a waiting worker re-reads the clock at least this often
};

struct TargetOptions {
  int64_t max_age_ms = 0;  // 0: the queue's max_age_ms
};

struct TargetMetrics {
  std::string target;
  bool registered = false;    // jobs for an unregistered target wait (until they expire)
  uint64_t queued_total = 0;  // enqueued, and recovered at open
  uint64_t delivered_total = 0;
  uint64_t retried_total = 0;  // attempts that ended kRetry
  uint64_t failed_total = 0;   // jobs that ended kFailed
  uint64_t dropped_total = 0;  // jobs expired or evicted unsent
  uint64_t queue_length = 0;
  int64_t oldest_age_ms = 0;    // 0 when empty
  int64_t next_attempt_ms = 0;  // when the head job is tried again after a failure; 0: now
  uint32_t head_attempts = 0;   // failed attempts of the head job so far
};

struct DeliveryMetrics {
  std::vector<TargetMetrics> targets;  // sorted by name
  TargetMetrics total;                 // summed (oldest_age_ms: the maximum); target is ""
  uint64_t file_bytes = 0;
  uint64_t compactions_total = 0;
  uint64_t write_errors_total = 0;
};

struct DeliveryFailure {
  std::string target;
  std::string kind;
  uint64_t job_id = 0;
  uint32_t attempt = 0;  // 1 for the first try
  int64_t time_ms = 0;
  std::string error;
  bool permanent = false;  // kFailed, expired or evicted: it will not be tried again
};

// What open() found in the file.
struct RecoveryReport {
  size_t jobs_recovered = 0;
  size_t records = 0;
  uint64_t corrupt_bytes = 0;
  uint64_t torn_tail_bytes = 0;
  std::vector<std::string> problems;  // with offsets; empty for a clean file
};

class DeliveryQueue {
 public:
  // Uniform in [0, 1); only ever called with the queue's lock held.
  using Random = std::function<double()>;

  // Opens (or creates) the queue in opts.dir. Fails only when the directory
  // or file cannot be created, opened or locked (another process using it).
  // `clock` and `log` must outlive the queue; log may be null.
  static Expected<std::unique_ptr<DeliveryQueue>> open(DeliveryQueueOptions opts, const base::Clock& clock,
                                                       Random random, base::Logger* log = nullptr);
  ~DeliveryQueue();  // stop()
  DeliveryQueue(const DeliveryQueue&) = delete;
  DeliveryQueue& operator=(const DeliveryQueue&) = delete;

  // Registers where `name`'s jobs go and starts its worker; jobs already
  // queued (recovered ones included) start right away. Once per name.
  Status add_target(const std::string& name, std::shared_ptr<DeliveryTarget> target, TargetOptions opts = {});

  // Appends a job; the id, or an error if it could not be written (the job is
  // then not queued). A target that is not registered yet may be named.
  Expected<uint64_t> enqueue(std::string_view target, std::string_view kind, std::string payload);

  // Stops the workers (a send in progress finishes first); jobs stay on disk.
  void stop();
  // Wakes every worker to re-read the clock now (after a test moved it).
  void wake();

  DeliveryMetrics metrics() const;
  std::vector<DeliveryFailure> recent_failures() const;  // newest first
  const RecoveryReport& recovery() const { return recovery_; }
  // Jobs queued for all targets (in flight included).
  size_t size() const;

 private:
  struct Job {
    uint64_t id;
    int64_t created_ms;
    uint32_t attempts;
    std::string kind;
    std::shared_ptr<const std::string> payload;
    size_t record_bytes;  // size of its job record in the file
  };
  struct Target {
    std::shared_ptr<DeliveryTarget> sink;
    TargetOptions opts;
    std::deque<Job> jobs;
    bool in_flight = false;
    int64_t next_try_ms = 0;
    std::thread worker;
    TargetMetrics m;
  };
  struct Dropped {
    std::shared_ptr<DeliveryTarget> sink;
    std::string target;
    Job job;
    std::string reason;
  };

  DeliveryQueue(DeliveryQueueOptions opts, const base::Clock& clock, Random random, base::Logger* log);
  Status open_file(std::string_view existing);
  void worker(const std::string& name);
  Status append_locked(const std::string& bytes, bool sync);
  void ack_locked(uint64_t id, queue_file::AckReason reason);
  void remove_front_locked(Target& t, queue_file::AckReason reason);
  void expire_locked(const std::string& name, Target& t, int64_t now, std::vector<Dropped>& out);
  void evict_locked(std::vector<Dropped>& out);
  void note_failure_locked(const std::string& target, const Job& job, std::string error, bool permanent);
  Status compact_locked();
  void maybe_compact_locked();
  int64_t max_age_for(const Target& t) const;
  void report_dropped(std::vector<Dropped>& dropped);

  const DeliveryQueueOptions opts_;
  const base::Clock& clock_;
  Random random_;
  base::Logger* log_;
  RecoveryReport recovery_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, Target> targets_;
  uint64_t next_id_ = 1;
  size_t jobs_ = 0;
  int fd_ = -1;
  int lock_fd_ = -1;
  uint64_t file_bytes_ = 0;
  uint64_t live_bytes_ = 0;
  uint64_t compactions_ = 0;
  uint64_t write_errors_ = 0;
  std::deque<DeliveryFailure> failures_;
};

}  // namespace llmon::notify
