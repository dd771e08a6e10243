#include "remote/queue.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "remote/write_request_decoder.h"
#include "remote/write_request_v2.h"
#include "remote/write_request_v2_decoder.h"
#include "tsdb/db.h"
#include "tsdb/temp_dir.h"

namespace llmon::remote {
namespace {

using llmon::testing::TempDir;
using model::Labels;

constexpr int64_t kRange = 10'000;  // 10 s chunk ranges: WAL truncation comes quickly

tsdb::DbOptions db_options(const std::string& dir) {
  tsdb::DbOptions o;
  o.path = dir;
  o.head.chunk_range_ms = kRange;
  o.background = false;
  o.min_free_bytes = 0;
  o.retention_ms = 0;
  return o;
}

Labels labels(int i) {
  return *Labels::make({{"__name__", "m"}, {"i", std::to_string(i)}});
}

void append_cycles(tsdb::Db& db, int n, int64_t from, int64_t to) {
  for (int64_t c = from; c < to; ++c) {
    auto app = db.appender();
    for (int i = 0; i < n; ++i) ASSERT_TRUE(app->append(0, labels(i), c * 1000, static_cast<double>(i * 1000 + c)));
    ASSERT_TRUE(app->commit().is_ok());
  }
}

// A receiver: records every acknowledged sample as "labels@t=v"; answers
// the statuses in `script` first (then 200). It decodes 1.0 and 2.0 bodies
// by their protocol; `v2` says how a 2.0 request is answered. Shards call
// it from several threads: everything under `mu`.
struct Receiver {
  enum class V2 { kWritten, k415, kNoHeaders };  // a 2.0 receiver; a 1.x one (415, or 204 and nothing written)
  std::vector<int> script;
  V2 v2 = V2::kWritten;
  int sleep_ms = 0;
  std::mutex mu;
  size_t calls = 0, v2_calls = 0, in_flight = 0, max_in_flight = 0;
  std::multiset<std::string> got;
  std::map<std::string, std::vector<int64_t>> times;  // per series, in arrival order
  std::vector<WriteMetadata> metadata;
  std::vector<std::optional<WriteMetadata>> series_metadata;  // 2.0: per series received

  PostFn post() {
    return [this](std::string_view body, Protocol p) -> Expected<net::http::Response> {
      {
        std::lock_guard lock(mu);
        ++in_flight;
        max_in_flight = std::max(max_in_flight, in_flight);
      }
      if (sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      std::lock_guard lock(mu);
      --in_flight;
      net::http::Response r;
      r.status = calls < script.size() ? script[calls] : 200;
      ++calls;
      if (r.status == -1) return Status::error("connect: refused");
      if (r.status != 200) return r;
      std::string raw;
      EXPECT_TRUE(snappy::Uncompress(body.data(), body.size(), &raw));
      std::vector<WriteSeries> series;
      if (p == Protocol::kV2) {
        ++v2_calls;
        if (v2 == V2::k415) {
          r.status = 415;
          return r;
        }
        if (v2 == V2::kNoHeaders) {
          r.status = 204;  // a 1.x receiver decoding an empty 1.0 message
          return r;
        }
        size_t n = 0;
        for (auto& s : testing::decode_v2(raw).series) {
          n += s.samples.size();
          series_metadata.push_back(s.metadata);
          series.push_back({std::move(s.labels), std::move(s.samples), nullptr});
        }
        r.headers.emplace_back(std::string(kSamplesWrittenHeader), std::to_string(n));
      } else {
        auto d = testing::decode(raw);
        series = std::move(d.series);
        for (auto& m : d.metadata) metadata.push_back(std::move(m));
      }
      for (const auto& s : series) {
        std::string key;
        for (const auto& l : s.labels) key += l.name + "=" + l.value + ",";
        for (const auto& p : s.samples) {
          got.insert(key + "@" + std::to_string(p.t_ms) + "=" + std::to_string(p.v));
          times[key].push_back(p.t_ms);
        }
      }
      return r;
    };
  }
};

std::multiset<std::string> expected(int n, int64_t from, int64_t to, const std::string& extra = "") {
  std::multiset<std::string> out;
  for (int64_t c = from; c < to; ++c)
    for (int i = 0; i < n; ++i)
      out.insert("__name__=m," + extra + "i=" + std::to_string(i) + ",@" + std::to_string(c * 1000) + "=" +
                 std::to_string(static_cast<double>(i * 1000 + c)));
  return out;
}

struct Fixture {
  TempDir dir;
  base::Logger log{base::LogLevel::kError};
  base::ManualClock clock{1'000'000};
  std::unique_ptr<tsdb::Db> db;
  Fixture() {
    auto d = tsdb::Db::open(db_options(dir.path()), log, clock);
    EXPECT_TRUE(d) << d.error();
    db = std::move(*d);
  }
  std::unique_ptr<Queue> queue(Receiver& r, uint64_t max_per_send = 2000, std::vector<model::Label> ext = {},
                               const std::function<void(QueueOptions&)>& tweak = nullptr) {
    QueueOptions o;
    o.config.url = "http://127.0.0.1:1/api/v1/write";
    o.config.queue.max_samples_per_send = max_per_send;
    o.config.queue.capacity = max_per_send;  // steps of one request per shard
    o.config.queue.min_backoff_ms = 1;
    o.config.queue.max_backoff_ms = 2;
    o.config.queue.batch_send_deadline_ms = 0;  // send partial requests at once
    o.external_labels = std::move(ext);
    o.storage_path = dir.path();
    o.position_path = dir.path() + "/remote_write/q.pos";
    o.store = db.get();
    if (tweak) tweak(o);
    auto q = Queue::create(std::move(o), r.post(), clock, log);
    EXPECT_TRUE(q) << q.error();
    return std::move(*q);
  }
};

void drain(Queue& q) {
  for (int i = 0; i < 10000 && q.step(); ++i) {
  }
}

TEST(Queue, SendsEveryStoredSampleOnce) {
  Fixture f;
  append_cycles(*f.db, 5, 1, 40);
  Receiver r;
  auto q = f.queue(r, 7);  // batches cut records: the position's skip is used
  drain(*q);
  EXPECT_EQ(r.got, expected(5, 1, 40));
  EXPECT_EQ(q->stats().samples_sent, 5u * 39);
  EXPECT_EQ(q->stats().highest_sent_ms, 39000);
  // New samples keep flowing.
  append_cycles(*f.db, 5, 40, 45);
  drain(*q);
  EXPECT_EQ(r.got, expected(5, 1, 45));
}

TEST(Queue, RestartResumesAtTheFirstUnacknowledgedSample) {
  Fixture f;
  append_cycles(*f.db, 3, 1, 20);
  Receiver r;
  {
    auto q = f.queue(r, 4);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(q->step());
  }
  EXPECT_EQ(r.got.size(), 20u);
  append_cycles(*f.db, 3, 20, 25);
  {
    auto q = f.queue(r, 4);  // a new process: the position file says where
    drain(*q);
  }
  EXPECT_EQ(r.got, expected(3, 1, 25));
}

TEST(Queue, RetriesServerErrorsAndDropsClientErrors) {
  Fixture f;
  append_cycles(*f.db, 2, 1, 4);  // 3 records of 2 samples
  Receiver r;
  r.script = {503, -1, 429, 200, 400};
  auto q = f.queue(r, 2);
  drain(*q);
  const QueueStats s = q->stats();
  EXPECT_EQ(s.samples_failed, 6u);  // three failed attempts of 2 samples
  EXPECT_EQ(s.samples_retried, 6u);
  EXPECT_EQ(s.samples_dropped, 2u);  // the 400
  EXPECT_EQ(s.samples_sent, 4u);
  EXPECT_EQ(r.got.size(), 4u);
}

TEST(Queue, ExternalLabelsAndRelabelling) {
  Fixture f;
  append_cycles(*f.db, 3, 1, 3);
  Receiver r;
  QueueOptions o;
  o.config.url = "http://x/";
  o.config.queue.batch_send_deadline_ms = 0;
  scrape::RelabelConfig drop;
  drop.source_labels = {"i"};
  drop.regex = "1";
  drop.action = scrape::RelabelAction::kDrop;
  o.config.write_relabel_configs = {drop};
  o.external_labels = {{"cluster", "c1"}};
  o.storage_path = f.dir.path();
  o.position_path = f.dir.path() + "/remote_write/r.pos";
  auto q = Queue::create(std::move(o), r.post(), f.clock, f.log);
  ASSERT_TRUE(q);
  drain(**q);
  std::multiset<std::string> want;
  for (int64_t c = 1; c < 3; ++c)
    for (int i : {0, 2})
      want.insert("__name__=m,cluster=c1,i=" + std::to_string(i) + ",@" + std::to_string(c * 1000) + "=" +
                  std::to_string(static_cast<double>(i * 1000 + c)));
  EXPECT_EQ(r.got, want);
  EXPECT_EQ((*q)->stats().samples_relabel_dropped, 2u);
}

TEST(Queue, SegmentsTruncatedBeforeSendingAreReadBackFromTheStore) {
  Fixture f;
  Receiver r;
  auto q = f.queue(r);
  append_cycles(*f.db, 2, 1, 5);
  drain(*q);
  ASSERT_EQ(r.got.size(), 8u);
  // An outage during which the store moves the WAL into chunks.
  append_cycles(*f.db, 2, 5, 35);
  ASSERT_TRUE(f.db->flush(true).is_ok());
  append_cycles(*f.db, 2, 35, 40);
  drain(*q);
  EXPECT_GE(q->stats().wal_segments_lost, 1u);
  EXPECT_EQ(q->stats().samples_refilled, 2u * 30);
  EXPECT_EQ(r.got, expected(2, 1, 40));
}

TEST(Queue, UnreadableSeriesLogDelaysButDropsNothing) {
  Fixture f;
  append_cycles(*f.db, 2, 1, 4);
  Receiver r;
  auto q = f.queue(r);
  // The store swaps in a rewritten series log: for a moment there is none.
  std::filesystem::rename(f.dir.path() + "/series", f.dir.path() + "/series.old");
  EXPECT_FALSE(q->step());
  EXPECT_EQ(q->stats().samples_dropped, 0u);
  EXPECT_TRUE(r.got.empty());
  std::filesystem::rename(f.dir.path() + "/series.old", f.dir.path() + "/series");
  drain(*q);
  EXPECT_EQ(r.got, expected(2, 1, 4));
}

TEST(Queue, DamagedPositionFileIsAnError) {
  Fixture f;
  std::filesystem::create_directories(f.dir.path() + "/remote_write");
  ASSERT_TRUE(save_position(f.dir.path() + "/remote_write/q.pos", {}).is_ok());
  {
    std::FILE* fp = std::fopen((f.dir.path() + "/remote_write/q.pos").c_str(), "w");
    std::fputs("garbage\n", fp);
    std::fclose(fp);
  }
  Receiver r;
  QueueOptions o;
  o.config.url = "http://x/";
  o.storage_path = f.dir.path();
  o.position_path = f.dir.path() + "/remote_write/q.pos";
  auto q = Queue::create(std::move(o), r.post(), f.clock, f.log);
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().find("q.pos: line 1"), std::string::npos) << q.error();
}

std::vector<WriteMetadata> some_metadata() {
  return {{2, "m", "A gauge.", "bytes"}, {1, "c_total", "A counter.", ""}};
}

TEST(Queue, Protocol2SendsTheSymbolTableAndMetadataPerSeries) {
  Fixture f;
  append_cycles(*f.db, 3, 1, 5);
  Receiver r;
  auto q = f.queue(r, 2000, {}, [](QueueOptions& o) {
    o.config.protocol = Protocol::kV2;
    o.metadata = some_metadata;
  });
  drain(*q);
  EXPECT_EQ(r.got, expected(3, 1, 5));
  EXPECT_EQ(r.v2_calls, r.calls);
  EXPECT_TRUE(r.metadata.empty());  // 2.0 has no MetricMetadata requests
  ASSERT_FALSE(r.series_metadata.empty());
  for (const auto& m : r.series_metadata) {
    ASSERT_TRUE(m);
    EXPECT_EQ(m->type, 2);
    EXPECT_EQ(m->help, "A gauge.");
    EXPECT_EQ(m->unit, "bytes");
  }
  EXPECT_TRUE(q->stats().protocol_v2);
  EXPECT_EQ(q->stats().protocol_fallbacks, 0u);
}

TEST(Queue, Protocol2FallsBackTo1On415) {
  Fixture f;
  append_cycles(*f.db, 3, 1, 5);
  Receiver r;
  r.v2 = Receiver::V2::k415;
  auto q = f.queue(r, 2000, {}, [](QueueOptions& o) { o.config.protocol = Protocol::kV2; });
  drain(*q);
  EXPECT_EQ(r.got, expected(3, 1, 5));  // nothing lost: the refused request was resent as 1.0
  EXPECT_EQ(r.v2_calls, 1u);
  EXPECT_EQ(q->stats().protocol_fallbacks, 1u);
  EXPECT_FALSE(q->stats().protocol_v2);
  EXPECT_EQ(q->stats().samples_dropped, 0u);
}

TEST(Queue, Protocol2AnsweredWithoutWrittenHeadersIsA1xReceiver) {
  Fixture f;
  append_cycles(*f.db, 2, 1, 4);
  Receiver r;
  r.v2 = Receiver::V2::kNoHeaders;
  auto q = f.queue(r, 2000, {}, [](QueueOptions& o) { o.config.protocol = Protocol::kV2; });
  drain(*q);
  EXPECT_EQ(r.got, expected(2, 1, 4));
  EXPECT_EQ(r.v2_calls, 1u);
  EXPECT_EQ(q->stats().protocol_fallbacks, 1u);
  EXPECT_EQ(q->stats().samples_sent, 6u);
}

TEST(Queue, Protocol1SendsMetadataEverySendInterval) {
  Fixture f;
  append_cycles(*f.db, 2, 1, 3);
  Receiver r;
  auto q = f.queue(r, 2000, {}, [](QueueOptions& o) {
    o.metadata = some_metadata;
    o.config.metadata.max_samples_per_send = 1;  // one entry per request
    o.config.metadata.send_interval_ms = 60000;
  });
  drain(*q);
  ASSERT_EQ(r.metadata.size(), 2u);
  EXPECT_EQ(r.metadata[0].family, "c_total");  // sorted by family
  EXPECT_EQ(r.metadata[1].family, "m");
  EXPECT_EQ(r.metadata[1].help, "A gauge.");
  EXPECT_EQ(r.metadata[1].unit, "bytes");
  EXPECT_EQ(q->stats().metadata_sent, 2u);
  q->step();
  EXPECT_EQ(r.metadata.size(), 2u);  // not again before send_interval
  f.clock.advance_ms(60000);
  q->step();
  EXPECT_EQ(r.metadata.size(), 4u);
  EXPECT_EQ(r.got, expected(2, 1, 3));
}

TEST(Queue, ShardsSendInParallelAndKeepEachSeriesInOrder) {
  Fixture f;
  append_cycles(*f.db, 20, 1, 60);  // 1180 samples behind
  Receiver r;
  r.sleep_ms = 20;
  auto q = f.queue(r, 10, {}, [](QueueOptions& o) {
    o.config.queue.min_shards = 4;
    o.config.queue.max_shards = 4;
  });
  EXPECT_EQ(q->stats().shards, 4u);
  drain(*q);
  EXPECT_EQ(r.got, expected(20, 1, 60));
  EXPECT_GE(r.max_in_flight, 2u);
  EXPECT_LE(r.max_in_flight, 4u);
  EXPECT_EQ(r.times.size(), 20u);
  for (const auto& [series, t] : r.times) EXPECT_TRUE(std::is_sorted(t.begin(), t.end())) << series;
}

TEST(Queue, FallingBehindAddsShardsUpToMaxShards) {
  Fixture f;
  append_cycles(*f.db, 20, 1, 200);  // 3980 samples, 11 days behind the clock below
  f.clock.set_ms(1'000'000'000);
  Receiver r;
  r.sleep_ms = 3;  // each request takes a while: one shard cannot catch up
  auto q = f.queue(r, 20, {}, [](QueueOptions& o) {
    o.config.queue.min_shards = 1;
    o.config.queue.max_shards = 6;
    o.config.queue.catch_up_factor = 0;  // no catch-up cap here (the next test has one)
    o.reshard_interval_s = 0.05;
  });
  EXPECT_EQ(q->stats().shards, 1u);
  uint64_t most = 1;
  for (int i = 0; i < 10000 && q->step(); ++i) most = std::max(most, q->stats().shards);
  EXPECT_EQ(most, 6u);  // the rule asks for far more; max_shards caps it
  EXPECT_EQ(q->stats().shards_max, 6u);
  EXPECT_GE(r.max_in_flight, 2u);
  EXPECT_EQ(r.got, expected(20, 1, 200));
  for (const auto& [series, t] : r.times) EXPECT_TRUE(std::is_sorted(t.begin(), t.end())) << series;
}

TEST(Queue, CatchUpIsCappedAtAFactorOfTheIngestRate) {
  Fixture f;
  append_cycles(*f.db, 20, 1, 100);  // 1980 samples at 20 samples/s of data time
  f.clock.set_ms(1'000'000'000);
  Receiver r;
  // 3 ms a request: the ~99 requests outlast the first 0.05 s update on any
  // machine, so the cap has a rate to work from (a fast machine drained the
  // backlog before the first update and was never capped).
  r.sleep_ms = 3;
  auto q = f.queue(r, 20, {}, [](QueueOptions& o) {
    o.config.queue.catch_up_factor = 25;  // at most ~500 samples/s once the rate is known
    o.reshard_interval_s = 0.05;
  });
  const double t0 = base::monotonic_seconds();
  drain(*q);
  const double took = base::monotonic_seconds() - t0;
  EXPECT_EQ(r.got, expected(20, 1, 100));
  // Unbounded this takes about 0.3 s (99 requests of 3 ms); capped, about
  // 2 s here (the rate estimate lags the first reads). A lower bound only:
  // sleeps never end early, so a loaded machine cannot make it fail.
  EXPECT_GE(took, 1.0);
}

TEST(Queue, ShardsAcrossARestartSendEverySampleOnce) {
  Fixture f;
  append_cycles(*f.db, 7, 1, 30);
  Receiver r;
  auto tweak = [](QueueOptions& o) {
    o.config.queue.min_shards = 3;
    o.config.queue.max_shards = 3;
  };
  {
    auto q = f.queue(r, 5, {}, tweak);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(q->step());
  }
  append_cycles(*f.db, 7, 30, 35);
  {
    auto q = f.queue(r, 5, {}, tweak);
    drain(*q);
  }
  EXPECT_EQ(r.got, expected(7, 1, 35));
}

TEST(Queue, AStepReadsCapacitySamplesInConsecutiveRequests) {
  Fixture f;
  append_cycles(*f.db, 10, 1, 11);  // 100 samples
  Receiver r;
  auto q = f.queue(r, 10, {}, [](QueueOptions& o) { o.config.queue.capacity = 50; });
  ASSERT_TRUE(q->step());
  EXPECT_EQ(r.got.size(), 50u);  // one step: 50 samples, in 5 requests of 10
  EXPECT_EQ(r.calls, 5u);
  EXPECT_EQ(r.max_in_flight, 1u);  // one shard
  drain(*q);
  EXPECT_EQ(r.got, expected(10, 1, 11));
}

TEST(Queue, PartialRequestWaitsForTheBatchSendDeadline) {
  Fixture f;
  append_cycles(*f.db, 2, 1, 3);  // 4 samples, fewer than max_samples_per_send
  Receiver r;
  auto q = f.queue(r, 100, {}, [](QueueOptions& o) { o.config.queue.batch_send_deadline_ms = 5000; });
  EXPECT_FALSE(q->step());
  EXPECT_TRUE(r.got.empty());
  append_cycles(*f.db, 2, 3, 4);
  f.clock.advance_ms(4000);
  EXPECT_FALSE(q->step());
  EXPECT_TRUE(r.got.empty());
  f.clock.advance_ms(1000);
  EXPECT_TRUE(q->step());
  EXPECT_EQ(r.got, expected(2, 1, 4));  // one request with what came meanwhile
  EXPECT_EQ(r.calls, 1u);
}

}  // namespace
}  // namespace llmon::remote
