// Queue: one remote_write endpoint fed from the store's WAL
// (docs/remote_write.md). A thread reads samples from the queue's durable
// ReadPosition on (WalReader), oldest first, puts up to
// max_samples_per_send into one WriteRequest (write_relabel_configs and
// external labels applied per series), sends it and, once the receiver
// acknowledged it (or refused it for good: dropped and counted), saves the
// position after it atomically. So a restart, a kill -9 included, resumes
// at the first unacknowledged sample and an outage is replayed from disk;
// one request is in flight at a time, which bounds the catch-up rate.
//
// Samples the store removed before they were sent (WAL segments truncated
// into chunks during a long outage) are re-read from the store through
// storage::Storage by time range; damaged WAL records are counted as
// dropped. Thread-safety: start()/stop() from one thread; stats() from any.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "net/http_response.h"
#include "remote/remote_config.h"
#include "remote/wal_reader.h"
#include "storage/storage.h"

namespace llmon::remote {

struct QueueStats {
  uint64_t samples_sent = 0;     // acknowledged by the receiver
  uint64_t samples_failed = 0;   // in requests that failed and were retried (each attempt)
  uint64_t samples_retried = 0;  // same as failed: resent after a failure
  uint64_t samples_dropped = 0;  // refused for good (4xx), unknown series, damaged WAL records
  uint64_t samples_relabel_dropped = 0;
  uint64_t samples_pending = 0;  // in the request being sent
  uint64_t requests_sent = 0;
  uint64_t bytes_sent = 0;  // compressed bodies acknowledged
  uint64_t wal_segments_lost = 0;
  uint64_t samples_refilled = 0;  // read back from the store for lost segments
  int64_t highest_sent_ms = 0;
  uint64_t wal_corruptions = 0;
};

// One POST of a compressed body: the response, or an error for a transport failure.
using PostFn = std::function<Expected<net::http::Response>(std::string_view body)>;

struct QueueOptions {
  RemoteWriteConfig config;
  std::vector<model::Label> external_labels;
  std::string storage_path;           // the store's directory (its wal/ and series/)
  std::string position_path;          // <storage>/remote_write/<hash>.pos
  int64_t poll_interval_ms = 200;     // when caught up
  storage::Storage* store = nullptr;  // for refilling lost segments (may be null: counted as dropped)
};

class Queue {
 public:
  static Expected<std::unique_ptr<Queue>> create(QueueOptions o, PostFn post, const base::Clock& clock,
                                                 base::Logger& log);
  ~Queue();
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  void start();
  void stop();  // waits for the thread; an unacknowledged batch is resent after a restart
  // One read-send step (tests; the thread runs it in a loop). Returns true
  // when it sent or dropped something.
  bool step();

  QueueStats stats() const;
  const std::string& name() const { return name_; }
  const std::string& url() const { return opts_.config.url; }
  ReadPosition position() const;

 private:
  Queue(QueueOptions o, PostFn post, const base::Clock& clock, base::Logger& log, scrape::Relabeler relabel);
  void run();
  bool sleep_ms(int64_t ms);  // false when stopping
  // Sends `body` until acknowledged or dropped; false when stopping.
  bool deliver(const std::string& body, size_t samples, bool& dropped);
  void refill(int64_t from_ms, int64_t to_ms);
  const std::vector<model::Label>* series_labels(storage::SeriesRef ref);

  QueueOptions opts_;
  PostFn post_;
  const base::Clock& clock_;
  base::Logger& log_;
  scrape::Relabeler relabel_;
  std::string name_;
  WalReader reader_;
  ReadPosition pos_;
  std::unordered_map<storage::SeriesRef, std::optional<std::vector<model::Label>>> relabelled_;

  mutable std::mutex mu_;
  QueueStats stats_;
  ReadPosition pos_copy_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The PostFn for a RemoteWriteConfig: net::http::Client with its auth, TLS,
// headers, timeout and the protocol's headers.
Expected<PostFn> http_post_fn(const RemoteWriteConfig& c);

}  // namespace llmon::remote
