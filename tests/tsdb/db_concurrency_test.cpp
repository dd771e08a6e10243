// Concurrent use of a Db with everything running: one writer committing
// cycles as fast as it can (and moving the clock with the data, so time
// retention keeps deleting), the background thread (fsync every 10 ms, chunk
// persistence at every 1 s boundary, retention every 20 ms), three readers
// (select + iterate + seek, label_names, label_values) and a stats() poller.
// Readers must only ever see exact values, strictly increasing timestamps
// and whole commits. Meant to run under ThreadSanitizer (docs/testing.md,
// "Store durability tests"); in a plain build it checks the same invariants.
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include "tsdb/db.h"
#include "tsdb/db_test_util.h"
#include "tsdb/temp_dir.h"

namespace llmon::tsdb {
namespace {

using llmon::testing::bits;
using llmon::testing::cycle_value;
using llmon::testing::series_labels;
using llmon::testing::TempDir;
using model::Labels;
using model::Matcher;
using storage::SeriesRef;

constexpr int64_t kT0 = 1'600'000'000'000;
constexpr int64_t kStepMs = 100;
constexpr int kSeries = 60;
constexpr int kAlways = 20;  // series 0..19 are in every cycle
const std::string kMetric = "cc";

int64_t t_of(int64_t c) {
  return kT0 + c * kStepMs;
}
// Series 20..39 skip 3 s stretches; 40..59 vanish for 20 s at a time, longer
// than the 5 s retention, so retention removes them and they come back as
// new series.
bool present(int i, int64_t c) {
  if (i < kAlways) return true;
  if (i < 40) return (c / 30 + i) % 3 != 0;
  return (c / 200) % 2 == 0;
}

class Failures {
 public:
  void add(const std::string& s) {
    std::lock_guard l(mu_);
    if (list_.size() < 20) list_.push_back(s);
    ++count_;
  }
  std::string text() {
    std::lock_guard l(mu_);
    std::string out = std::to_string(count_) + " failures\n";
    for (const auto& s : list_) out += s + "\n";
    return count_ == 0 ? "" : out;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> list_;
  size_t count_ = 0;
};

TEST(DbConcurrency, WriterReadersStatsAndBackgroundWork) {
  TempDir dir;
  base::ManualClock clock(kT0);
  base::Logger log(base::LogLevel::kError);
  DbOptions o;
  o.path = dir.path();
  o.background = true;
  o.fsync_interval_ms = 10;
  o.head.chunk_range_ms = 1000;
  o.retention_ms = 5000;
  o.retention_check_interval_ms = 20;
  o.wal_segment_bytes = 16 << 10;
  o.chunks.segment_bytes = 8 << 10;
  o.chunks.segment_span_ms = 2000;
  o.min_free_bytes = 0;
  auto opened = Db::open(o, log, clock);
  ASSERT_TRUE(opened.has_value()) << opened.error();
  Db& db = **opened;

  std::vector<Labels> labels;
  for (int i = 0; i < kSeries; ++i) labels.push_back(series_labels(kMetric, i));
  Failures failures;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> committed{-1};  // newest cycle whose commit() returned
  std::atomic<uint64_t> reads{0}, samples_read{0}, stale_ref_retries{0}, commits_hit_by_retention{0};

  std::thread writer([&] {
    std::vector<SeriesRef> refs(kSeries, 0);
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (int64_t c = 0; std::chrono::steady_clock::now() < end; ++c) {
      clock.set_ms(t_of(c));  // retention cuts at t - 5 s
      auto app = db.appender();
      for (int i = 0; i < kSeries; ++i) {
        if (!present(i, c)) continue;
        auto r = app->append(refs[static_cast<size_t>(i)], labels[static_cast<size_t>(i)], t_of(c), cycle_value(i, c));
        if (!r && refs[static_cast<size_t>(i)] != 0) {
          ++stale_ref_retries;  // the series was removed by retention: a new one
          r = app->append(0, labels[static_cast<size_t>(i)], t_of(c), cycle_value(i, c));
        }
        if (!r) {
          failures.add("append series " + std::to_string(i) + " cycle " + std::to_string(c) + ": " + r.error());
          continue;
        }
        refs[static_cast<size_t>(i)] = *r;
      }
      if (Status st = app->commit(); !st) {
        // Retention between append() and commit() drops series append() just
        // created (checked deterministically by RetentionBetweenAppendAndCommit
        // below); counted here, not a race of this test's concern.
        if (st.message().find("series changed concurrently") != std::string::npos) {
          ++commits_hit_by_retention;
        } else {
          failures.add("commit cycle " + std::to_string(c) + ": " + st.message());
        }
      }
      committed.store(c);
    }
    stop.store(true);
  });

  auto reader = [&](int k) {
    std::mt19937 rng(static_cast<unsigned>(k));
    while (!stop.load()) {
      const int64_t floor = committed.load();
      auto q = db.querier(0, INT64_MAX);
      if (!q) {
        failures.add("querier: " + q.error());
        continue;
      }
      std::vector<Matcher> ms = {{Matcher::Type::kEq, "__name__", kMetric}};
      if (k == 2) ms.push_back({Matcher::Type::kNeq, "i", "3"});
      auto set = (*q)->select(0, INT64_MAX, ms);
      int64_t newest_always = INT64_MIN;
      bool newest_differs = false;
      while (set->next()) {
        const auto& s = set->at();
        int i = std::atoi(std::string(s.labels().get("i")).c_str());
        auto it = s.iterator();
        int64_t prev = INT64_MIN;
        bool ok = k == 1 ? it->seek(t_of(std::max<int64_t>(0, floor - static_cast<int64_t>(rng() % 100)))) : it->next();
        for (; ok; ok = it->next()) {
          model::Sample smp = it->at();
          ++samples_read;
          if (smp.t_ms <= prev) {
            failures.add("series " + std::to_string(i) + ": t=" + std::to_string(smp.t_ms) + " after " +
                         std::to_string(prev));
          }
          prev = smp.t_ms;
          int64_t c = (smp.t_ms - kT0) / kStepMs;
          if ((smp.t_ms - kT0) % kStepMs != 0 || !present(i, c) || bits(smp.v) != bits(cycle_value(i, c))) {
            failures.add("series " + std::to_string(i) + ": wrong sample t=" + std::to_string(smp.t_ms));
          }
        }
        if (!it->err().is_ok()) failures.add("iterator: " + it->err().message());
        if (i < kAlways && prev != INT64_MIN) {
          if (newest_always != INT64_MIN && prev != newest_always) newest_differs = true;
          newest_always = std::max(newest_always, prev);
        }
      }
      if (!set->err().is_ok()) failures.add("select: " + set->err().message());
      // A commit is seen whole or not at all, and every commit that returned
      // before the querier was made is seen.
      if (newest_differs) failures.add("a querier saw part of a commit");
      if (floor >= 0 && newest_always < t_of(floor)) {
        failures.add("commit " + std::to_string(floor) + " returned before the querier but is not visible (newest " +
                     std::to_string(newest_always) + ")");
      }
      if (k == 2) {
        auto names = (*q)->label_names();
        if (!names) {
          failures.add("label_names: " + names.error());
        } else if (floor >= 0 && std::find(names->begin(), names->end(), "i") == names->end()) {
          std::string got;
          for (const auto& n : *names) got += n + ",";
          failures.add("label_names lacks i after commit " + std::to_string(floor) + ": [" + got + "]");
        }
        auto values = (*q)->label_values("i");
        if (!values) {
          failures.add("label_values: " + values.error());
        } else if (floor >= 0 && values->size() < static_cast<size_t>(kAlways)) {
          failures.add("label_values(i) has " + std::to_string(values->size()) + " values");
        }
      }
      ++reads;
    }
  };

  std::thread stats_poller([&] {
    uint64_t commits = 0, samples = 0;
    while (!stop.load()) {
      DbStats s = db.stats();
      if (s.commits < commits || s.samples_committed < samples) failures.add("stats went backwards");
      if (!s.writable) failures.add("store not writable: " + s.last_error);
      commits = s.commits;
      samples = s.samples_committed;
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> readers;
  for (int k = 0; k < 3; ++k) readers.emplace_back(reader, k);
  writer.join();
  for (auto& t : readers) t.join();
  stats_poller.join();

  EXPECT_EQ(failures.text(), "");
  DbStats s = db.stats();
  std::printf(
      "[ conc     ] %lld cycles, %llu queries, %llu samples read, %llu chunks persisted, %llu segments and "
      "%llu series removed by retention, %llu fsyncs, %llu commits cut by retention\n",
      static_cast<long long>(committed.load() + 1), static_cast<unsigned long long>(reads.load()),
      static_cast<unsigned long long>(samples_read.load()), static_cast<unsigned long long>(s.chunks_persisted),
      static_cast<unsigned long long>(s.retention_segments_removed),
      static_cast<unsigned long long>(s.retention_series_removed), static_cast<unsigned long long>(s.fsyncs),
      static_cast<unsigned long long>(commits_hit_by_retention.load()));
  // The background work really ran alongside.
  EXPECT_GT(committed.load(), 50);
  EXPECT_GT(reads.load(), 3u);
  EXPECT_GT(s.chunks_persisted, 0u);
  EXPECT_GT(s.fsyncs, 0u);
  EXPECT_GT(s.retention_segments_removed + s.retention_series_removed, 0u);
  EXPECT_TRUE(db.close().is_ok());
}

// The background thread applies retention at any moment, so also between an
// appender's append() — which creates a new series right away, empty — and
// its commit(). Retention must not take that series for one with nothing
// left: the commit would then reject its samples ("series changed
// concurrently") although every append() succeeded.
TEST(DbConcurrency, RetentionBetweenAppendAndCommitKeepsNewSeries) {
  TempDir dir;
  base::ManualClock clock(kT0 + 10'000);
  base::Logger log(base::LogLevel::kError);
  DbOptions o;
  o.path = dir.path();
  o.background = false;
  o.head.chunk_range_ms = 1000;
  o.retention_ms = 5000;
  o.min_free_bytes = 0;
  auto db = Db::open(o, log, clock);
  ASSERT_TRUE(db.has_value()) << db.error();
  auto app = (*db)->appender();
  ASSERT_TRUE(app->append(0, series_labels("fresh", 0), kT0 + 10'000, 1.0).has_value());
  ASSERT_TRUE((*db)->apply_retention().is_ok());  // what the background thread may do right here
  Status st = app->commit();
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::string err;
  auto got = llmon::testing::read_metric(**db, "fresh", 0, INT64_MAX, &err);
  EXPECT_EQ(got[0].size(), 1u) << "the new series' sample was lost";
}

}  // namespace
}  // namespace llmon::tsdb
