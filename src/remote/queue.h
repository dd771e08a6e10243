// Queue: one remote_write endpoint fed from the store's WAL
// (docs/remote_write.md). A thread reads samples from the queue's durable
// ReadPosition on (WalReader), oldest first, up to max_samples_per_send per
// shard (and at most `capacity`), splits them by series over the shards
// (ShardTuner: Prometheus's rule within min/max_shards), and the shards
// send their requests at once (write_relabel_configs and external labels
// applied per series; protocol 1.0 or 2.0 with its fallback to 1.0).
// Once every request of the step was acknowledged (or refused for good:
// dropped and counted) the position after them is saved atomically. So a
// restart, a kill -9 included, resumes at the first unacknowledged sample,
// an outage is replayed from disk, oldest first, at most catch_up_factor x
// the ingest rate, and each series' samples stay in order (one shard per
// series, steps one after another). A partial request waits up to
// batch_send_deadline for more samples. 1.0 sends the families' metadata
// every metadata send_interval; 2.0 sends it with each series.
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
#include "remote/metadata_index.h"
#include "remote/remote_config.h"
#include "remote/shard_tuner.h"
#include "remote/wal_reader.h"
#include "remote/write_request.h"
#include "storage/storage.h"

namespace llmon::remote {

struct QueueStats {
  uint64_t samples_sent = 0;     // acknowledged by the receiver
  uint64_t samples_failed = 0;   // in requests that failed and were retried (each attempt)
  uint64_t samples_retried = 0;  // same as failed: resent after a failure
  uint64_t samples_dropped = 0;  // refused for good (4xx), unknown series, damaged WAL records
  uint64_t samples_relabel_dropped = 0;
  uint64_t samples_pending = 0;  // in the requests being sent (all shards)
  uint64_t requests_sent = 0;
  uint64_t bytes_sent = 0;  // compressed bodies acknowledged
  uint64_t wal_segments_lost = 0;
  uint64_t samples_refilled = 0;  // read back from the store for lost segments
  int64_t highest_sent_ms = 0;
  uint64_t wal_corruptions = 0;
  uint64_t metadata_sent = 0;       // 1.0 MetricMetadata entries acknowledged
  uint64_t protocol_fallbacks = 0;  // 2.0 refused (415, or no *-Written header): now 1.0
  uint64_t shards = 1, shards_desired = 1, shards_min = 1, shards_max = 1;
  bool protocol_v2 = false;  // what the queue sends now
};

// One POST of a compressed body in `protocol`'s message (its Content-Type
// and X-Prometheus-Remote-Write-Version): the response, or an error for a
// transport failure. Called from several shard threads at once.
using PostFn = std::function<Expected<net::http::Response>(std::string_view body, Protocol protocol)>;

// The families' metadata the agent knows now (collected and scraped).
using MetadataFn = std::function<std::vector<WriteMetadata>()>;

struct QueueOptions {
  RemoteWriteConfig config;
  std::vector<model::Label> external_labels;
  std::string storage_path;           // the store's directory (its wal/ and series/)
  std::string position_path;          // <storage>/remote_write/<hash>.pos
  int64_t poll_interval_ms = 200;     // when caught up
  storage::Storage* store = nullptr;  // for refilling lost segments (may be null: counted as dropped)
  MetadataFn metadata;                // may be null: no metadata is sent
  double reshard_interval_s = 10;     // Prometheus's shardUpdateDuration (tests shorten it)
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
  enum class Sent { kAcked, kDropped, kStopping };
  void run();
  bool sleep_ms(int64_t ms);  // false when stopping
  bool stopping() const;
  // Encodes and sends one request until acknowledged or dropped (any thread).
  Sent deliver(std::span<const SeriesView> series, const std::vector<WriteMetadata>& metadata, size_t samples);
  // Sends `series` as requests of at most max_samples_per_send samples over
  // `shards` threads (series i%shards on shard i); kStopping wins, then kAcked.
  Sent send_sharded(const std::vector<SeriesView>& series, size_t samples, uint64_t shards);
  void refill(int64_t from_ms, int64_t to_ms);
  // A series as sent: its labels after external labels and relabelling
  // (empty: dropped by relabelling), and flush_pending()'s per-step slot.
  struct SentSeries {
    std::vector<model::Label> labels;
    uint64_t step = 0;  // the flush_pending() call that gave `slot`
    uint32_t slot = 0;
    const WriteMetadata* metadata = nullptr;
    uint64_t metadata_gen = UINT64_MAX;  // metadata_gen_ when `metadata` was looked up (0: none)
  };
  // Null when the series log does not have `ref`.
  SentSeries* sent_series(storage::SeriesRef ref);
  void refresh_metadata();
  bool send_metadata_v1();  // false when stopping
  bool behind() const;
  // Sends what `pending_` holds and moves the saved position to pending_next_.
  bool flush_pending();  // false when stopping
  void throttle(uint64_t samples, double started_s);

  QueueOptions opts_;
  PostFn post_;
  const base::Clock& clock_;
  base::Logger& log_;
  scrape::Relabeler relabel_;
  std::string name_;
  WalReader reader_;
  ReadPosition pos_;  // acknowledged (saved)
  std::unordered_map<storage::SeriesRef, SentSeries> relabelled_;
  // Read but not sent yet (a partial request waiting for batch_send_deadline).
  std::vector<tsdb::wal::SampleEntry> pending_;
  // flush_pending()'s buffers, kept between steps (no allocation per step).
  uint64_t flush_step_ = 0;
  std::vector<SeriesView> views_;
  std::vector<uint32_t> slot_of_, fill_;
  std::vector<WriteSample> flat_;
  ReadPosition pending_next_;
  int64_t pending_since_ms_ = 0;
  bool caught_up_ = false;
  ShardTuner tuner_;
  std::atomic<Protocol> protocol_;
  std::atomic<bool> v2_confirmed_{false};  // a 2.0 request was acknowledged with *-Written headers
  std::shared_ptr<const MetadataIndex> metadata_;
  int64_t metadata_refreshed_ms_ = -1, metadata_sent_ms_ = -1;
  uint64_t metadata_gen_ = 0;  // counts refreshes of metadata_

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
