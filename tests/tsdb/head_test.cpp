#include "tsdb/head.h"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <thread>

namespace llmon::tsdb {
namespace {

using model::Label;
using model::Sample;
using Type = model::Matcher::Type;

Labels L(std::vector<Label> pairs) {
  auto l = Labels::make(std::move(pairs));
  EXPECT_TRUE(l.has_value()) << l.error();
  return *l;
}

Labels metric(const std::string& name, const std::string& inst = "a") {
  return L({{"__name__", name}, {"instance", inst}});
}

struct Got {
  Labels labels;
  std::vector<Sample> samples;
};

std::vector<Got> query(storage::Storage& st, int64_t mint, int64_t maxt, std::vector<model::Matcher> ms) {
  auto q = st.querier(mint, maxt);
  EXPECT_TRUE(q.has_value()) << q.error();
  std::vector<Got> out;
  auto set = (*q)->select(mint, maxt, ms);
  while (set->next()) {
    Got g{set->at().labels(), {}};
    auto it = set->at().iterator();
    while (it->next()) g.samples.push_back(it->at());
    EXPECT_TRUE(it->err().is_ok()) << it->err().message();
    out.push_back(std::move(g));
  }
  EXPECT_TRUE(set->err().is_ok()) << set->err().message();
  return out;
}

void append_ok(storage::Appender& app, const Labels& l, int64_t t, double v) {
  auto r = app.append(0, l, t, v);
  ASSERT_TRUE(r.has_value()) << r.error();
}

TEST(Head, AppendQueryRoundTripSortedByLabels) {
  Head head;
  auto app = head.appender();
  for (int64_t t = 1000; t <= 10000; t += 1000) {
    append_ok(*app, metric("zeta"), t, static_cast<double>(t) / 7);
    append_ok(*app, metric("alpha", "b"), t, 1.0);
    append_ok(*app, metric("alpha", "a"), t, -static_cast<double>(t));
  }
  // Nothing visible before commit.
  EXPECT_TRUE(query(head, 0, 20000, {{Type::kRe, "__name__", ".+"}}).empty());
  ASSERT_TRUE(app->commit().is_ok());
  auto got = query(head, 0, 20000, {{Type::kRe, "__name__", ".+"}});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].labels, metric("alpha", "a"));
  EXPECT_EQ(got[1].labels, metric("alpha", "b"));
  EXPECT_EQ(got[2].labels, metric("zeta"));
  ASSERT_EQ(got[2].samples.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    int64_t t = 1000 * static_cast<int64_t>(i + 1);
    EXPECT_EQ(got[2].samples[i].t_ms, t);
    EXPECT_EQ(std::bit_cast<uint64_t>(got[2].samples[i].v), std::bit_cast<uint64_t>(static_cast<double>(t) / 7));
  }
  // Range clipping by select and by the querier.
  auto clipped = query(head, 3000, 5000, {{Type::kEq, "__name__", "zeta"}});
  ASSERT_EQ(clipped.size(), 1u);
  ASSERT_EQ(clipped[0].samples.size(), 3u);
  EXPECT_EQ(clipped[0].samples.front().t_ms, 3000);
  EXPECT_EQ(clipped[0].samples.back().t_ms, 5000);
  EXPECT_TRUE(query(head, 11000, 20000, {{Type::kEq, "__name__", "zeta"}}).empty());
  EXPECT_EQ(head.counters().samples_appended, 30u);
}

TEST(Head, RollbackDropsAndAppenderEnds) {
  Head head;
  auto app = head.appender();
  append_ok(*app, metric("m"), 1000, 1);
  ASSERT_TRUE(app->rollback().is_ok());
  EXPECT_FALSE(app->commit().is_ok());
  EXPECT_FALSE(app->append(0, metric("m"), 2000, 1).has_value());
  EXPECT_TRUE(query(head, 0, 10000, {{Type::kEq, "__name__", "m"}}).empty());
  EXPECT_FALSE(head.querier(10, 5).has_value());
}

TEST(Head, RefsSkipLookupAndAreVerified) {
  Head head;
  auto app = head.appender();
  auto r1 = app->append(0, metric("m"), 1000, 1);
  ASSERT_TRUE(r1.has_value());
  auto r2 = app->append(0, metric("n"), 1000, 1);
  ASSERT_TRUE(r2.has_value());
  EXPECT_NE(*r1, *r2);
  ASSERT_TRUE(app->commit().is_ok());
  app = head.appender();
  auto again = app->append(*r1, Labels(), 2000, 2);
  ASSERT_TRUE(again.has_value()) << again.error();
  EXPECT_EQ(*again, *r1);
  EXPECT_FALSE(app->append(*r1, metric("n"), 3000, 2).has_value());  // ref of another series
  EXPECT_FALSE(app->append(999, Labels(), 2000, 2).has_value());
  EXPECT_EQ(head.counters().unknown_ref, 1u);
  ASSERT_TRUE(app->commit().is_ok());
  EXPECT_EQ(query(head, 0, 9000, {{Type::kEq, "__name__", "m"}})[0].samples.size(), 2u);
}

TEST(Head, OutOfOrderAndDuplicatesCounted) {
  Head head;
  auto app = head.appender();
  append_ok(*app, metric("m"), 2000, 5);
  // Against samples buffered in the same appender.
  EXPECT_FALSE(app->append(0, metric("m"), 1000, 5).has_value());
  EXPECT_TRUE(app->append(0, metric("m"), 2000, 5).has_value());   // identical: ignored
  EXPECT_FALSE(app->append(0, metric("m"), 2000, 6).has_value());  // different value
  ASSERT_TRUE(app->commit().is_ok());
  // Against committed data.
  app = head.appender();
  EXPECT_FALSE(app->append(0, metric("m"), 1500, 5).has_value());
  EXPECT_TRUE(app->append(0, metric("m"), 2000, 5).has_value());
  EXPECT_FALSE(app->append(0, metric("m"), 2000, 7).has_value());
  // A rejection does not poison the cycle.
  append_ok(*app, metric("m"), 3000, 8);
  ASSERT_TRUE(app->commit().is_ok());
  auto c = head.counters();
  EXPECT_EQ(c.out_of_order, 2u);
  EXPECT_EQ(c.duplicate, 2u);
  auto got = query(head, 0, 9000, {{Type::kEq, "__name__", "m"}});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].samples.size(), 2u);
  EXPECT_EQ(got[0].samples[0].v, 5);
  EXPECT_EQ(got[0].samples[1].v, 8);
}

// Two appenders buffering the same series: each checks against its own
// buffered samples (one keeps them in the series, the other in its map),
// and the commit of the later one re-checks against what the first committed.
TEST(Head, TwoAppendersOnOneSeries) {
  Head head;
  auto a = head.appender();
  auto b = head.appender();
  append_ok(*a, metric("m"), 1000, 1);
  append_ok(*b, metric("m"), 2000, 2);
  EXPECT_FALSE(b->append(0, metric("m"), 1500, 2).has_value());  // older than b's own
  EXPECT_FALSE(a->append(0, metric("m"), 900, 1).has_value());   // older than a's own
  EXPECT_TRUE(b->append(0, metric("m"), 2000, 2).has_value());   // b's identical: ignored
  EXPECT_FALSE(b->append(0, metric("m"), 2000, 3).has_value());  // b's, other value
  append_ok(*a, metric("m"), 1100, 1);
  ASSERT_TRUE(b->commit().is_ok());
  // While a still holds samples, a third appender checks against its own and the committed.
  auto c = head.appender();
  EXPECT_FALSE(c->append(0, metric("m"), 1900, 4).has_value());
  append_ok(*c, metric("m"), 2100, 4);
  EXPECT_FALSE(c->append(0, metric("m"), 2050, 4).has_value());
  EXPECT_FALSE(a->commit().is_ok());  // 1000 and 1100 are older than b's 2000 now
  ASSERT_TRUE(c->commit().is_ok());
  // After both gave the series back, a new appender keeps it again.
  auto d = head.appender();
  append_ok(*d, metric("m"), 3000, 5);
  EXPECT_FALSE(d->append(0, metric("m"), 2500, 5).has_value());
  EXPECT_FALSE(d->append(0, metric("m"), 3000, 6).has_value());
  ASSERT_TRUE(d->commit().is_ok());
  auto got = query(head, 0, 9000, {{Type::kEq, "__name__", "m"}});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].samples.size(), 3u);
  EXPECT_EQ(got[0].samples[0].t_ms, 2000);
  EXPECT_EQ(got[0].samples[1].t_ms, 2100);
  EXPECT_EQ(got[0].samples[2].t_ms, 3000);
  EXPECT_EQ(head.counters().out_of_order, 7u);  // 5 at append, 2 at a's commit
}

// Rollback and an appender dropped without commit give their series back:
// the next appender's own samples are checked as usual.
TEST(Head, RollbackAndDroppedAppenderGiveSeriesBack) {
  Head head;
  {
    auto a = head.appender();
    append_ok(*a, metric("m"), 5000, 1);
    ASSERT_TRUE(a->rollback().is_ok());
    auto b = head.appender();
    append_ok(*b, metric("m"), 4000, 1);  // a's sample is gone
    // b dropped here without commit
  }
  auto c = head.appender();
  append_ok(*c, metric("m"), 3000, 1);
  EXPECT_FALSE(c->append(0, metric("m"), 2000, 1).has_value());
  ASSERT_TRUE(c->commit().is_ok());
  auto got = query(head, 0, 9000, {{Type::kEq, "__name__", "m"}});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].samples.size(), 1u);
  EXPECT_EQ(got[0].samples[0].t_ms, 3000);
}

// A truncation between append() and commit() that removes a buffered
// series: commit finds it gone (its sample counted as unknown), the other
// buffered series are applied.
TEST(Head, TruncationRemovingBufferedSeriesBeforeCommit) {
  HeadOptions opt;
  opt.chunk_range_ms = 10'000;
  Head head(opt);
  auto first = head.appender();
  append_ok(*first, metric("old"), 1000, 1);
  append_ok(*first, metric("new"), 6000, 1);
  ASSERT_TRUE(first->commit().is_ok());
  auto app = head.appender();
  auto old_ref = app->append(0, metric("old"), 2000, 2);
  ASSERT_TRUE(old_ref.has_value());
  append_ok(*app, metric("new"), 20'000, 2);
  // "old" has nothing at or after 5 s committed: removed with its buffered sample.
  EXPECT_EQ(head.truncate_before(5000).series_removed, 1u);
  EXPECT_FALSE(app->commit().is_ok());
  EXPECT_EQ(head.counters().unknown_ref, 1u);
  auto got = query(head, 0, 100'000, {{Type::kRe, "__name__", ".+"}});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].labels, metric("new"));
  ASSERT_EQ(got[0].samples.size(), 2u);
  EXPECT_EQ(got[0].samples[0].t_ms, 6000);
  EXPECT_EQ(got[0].samples[1].t_ms, 20'000);
}

TEST(Head, StaleMarkerAndNaNBitsKept) {
  Head head;
  auto app = head.appender();
  double other_nan = std::bit_cast<double>(uint64_t{0x7ff8000000000001});
  append_ok(*app, metric("m"), 1000, 1);
  append_ok(*app, metric("m"), 2000, other_nan);
  append_ok(*app, metric("m"), 3000, model::stale_nan());
  ASSERT_TRUE(app->commit().is_ok());
  auto got = query(head, 0, 9000, {{Type::kEq, "__name__", "m"}});
  ASSERT_EQ(got[0].samples.size(), 3u);
  EXPECT_FALSE(model::is_stale(got[0].samples[1].v));
  EXPECT_EQ(std::bit_cast<uint64_t>(got[0].samples[1].v), 0x7ff8000000000001u);
  EXPECT_TRUE(model::is_stale(got[0].samples[2].v));
}

TEST(Head, ChunksCutBySampleCountAndTimeRange) {
  HeadOptions opt;
  opt.chunk_max_samples = 100;
  opt.chunk_range_ms = 60'000;
  Head head(opt);
  // 250 samples at 100 ms: cut at 100 and 200 samples (all within 25 s).
  for (int64_t i = 0; i < 250; ++i) {
    auto app = head.appender();
    append_ok(*app, metric("count"), i * 100, static_cast<double>(i));
    ASSERT_TRUE(app->commit().is_ok());
  }
  EXPECT_EQ(head.memory().closed_chunks, 2u);
  // Time cut: samples at 10 s steps from 30 s cross the 60 s and 120 s boundaries.
  for (int64_t t = 30'000; t < 150'000; t += 10'000) {
    auto app = head.appender();
    append_ok(*app, metric("time"), t, 1);
    ASSERT_TRUE(app->commit().is_ok());
  }
  EXPECT_EQ(head.memory().closed_chunks, 4u);
  auto got = query(head, 0, 1'000'000, {{Type::kEq, "__name__", "count"}});
  ASSERT_EQ(got[0].samples.size(), 250u);
  for (size_t i = 0; i < 250; ++i) ASSERT_EQ(got[0].samples[i].v, static_cast<double>(i));
  // Seek across chunks (lands in the third chunk), then continue.
  auto q = head.querier(0, 1'000'000);
  auto set = (*q)->select(0, 1'000'000, {{Type::kEq, "__name__", "count"}});
  ASSERT_TRUE(set->next());
  auto it = set->at().iterator();
  ASSERT_TRUE(it->seek(20'050));
  EXPECT_EQ(it->at().t_ms, 20'100);
  ASSERT_TRUE(it->seek(0));  // never backwards
  EXPECT_EQ(it->at().t_ms, 20'100);
  ASSERT_TRUE(it->next());
  EXPECT_EQ(it->at().t_ms, 20'200);
  EXPECT_FALSE(it->seek(99'999));
  auto mem = head.memory();
  EXPECT_EQ(mem.samples, 262u);
  EXPECT_GT(mem.chunk_bytes, 0u);
  EXPECT_GT(mem.index_bytes, 0u);
  EXPECT_EQ(mem.total(), mem.chunk_bytes + mem.series_bytes + mem.index_bytes);
}

TEST(Head, TruncateBeforeDropsChunksAndSeries) {
  HeadOptions opt;
  opt.chunk_range_ms = 10'000;
  Head head(opt);
  for (int64_t t = 0; t < 30'000; t += 1000) {
    auto app = head.appender();
    append_ok(*app, metric("long"), t, 1);
    if (t < 5000) append_ok(*app, metric("short"), t, 2);
    ASSERT_TRUE(app->commit().is_ok());
  }
  EXPECT_EQ(head.num_series(), 2u);
  auto r = head.truncate_before(15'000);
  EXPECT_EQ(r.series_removed, 1u);  // "short"
  EXPECT_EQ(r.chunks_removed, 2u);  // long [0,10s), short's open chunk
  EXPECT_EQ(head.num_series(), 1u);
  auto got = query(head, 0, 100'000, {{Type::kRe, "__name__", ".*"}});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].samples.front().t_ms, 10'000);  // whole chunks only
  auto q = head.querier(0, 100'000);
  EXPECT_EQ(*(*q)->label_values("__name__"), std::vector<std::string>{"long"});
  // Out of bounds now; a new series of the removed name starts over.
  auto app = head.appender();
  EXPECT_FALSE(app->append(0, metric("short"), 14'000, 1).has_value());
  EXPECT_EQ(head.counters().out_of_bounds, 1u);
  append_ok(*app, metric("short"), 31'000, 3);
  ASSERT_TRUE(app->commit().is_ok());
  EXPECT_EQ(query(head, 0, 100'000, {{Type::kEq, "__name__", "short"}})[0].samples.size(), 1u);
}

TEST(Head, LabelNamesAndValuesInRange) {
  Head head;
  auto app = head.appender();
  append_ok(*app, L({{"__name__", "old"}, {"disk", "sda"}}), 1000, 1);
  append_ok(*app, L({{"__name__", "new"}, {"gpu", "0"}}), 50'000, 1);
  ASSERT_TRUE(app->commit().is_ok());
  auto q = head.querier(40'000, 60'000);
  EXPECT_EQ(*(*q)->label_names(), (std::vector<std::string>{"__name__", "gpu"}));
  EXPECT_EQ(*(*q)->label_values("__name__"), std::vector<std::string>{"new"});
}

TEST(Head, QuerierSeesOnlyEarlierCommits) {
  Head head;
  auto app = head.appender();
  auto ref = app->append(0, metric("m"), 1000, 1);
  ASSERT_TRUE(ref.has_value());
  ASSERT_TRUE(app->commit().is_ok());
  auto q = head.querier(0, 100'000);
  ASSERT_TRUE(q.has_value());
  for (int64_t t = 2000; t <= 5000; t += 1000) {  // several later commits
    app = head.appender();
    ASSERT_TRUE(app->append(*ref, Labels(), t, static_cast<double>(t)).has_value());
    append_ok(*app, metric("later"), t, 1);
    ASSERT_TRUE(app->commit().is_ok());
  }
  auto set = (*q)->select(0, 100'000, {{Type::kRe, "__name__", ".+"}});
  ASSERT_TRUE(set->next());
  EXPECT_EQ(set->at().labels(), metric("m"));
  auto it = set->at().iterator();
  size_t n = 0;
  while (it->next()) ++n;
  EXPECT_EQ(n, 1u);
  EXPECT_FALSE(set->next());  // "later" did not exist for this querier
  q->reset();
  EXPECT_EQ(query(head, 0, 100'000, {{Type::kEq, "__name__", "m"}})[0].samples.size(), 5u);
}

TEST(Head, SelectErrorsReported) {
  Head head;
  auto q = head.querier(0, 10);
  auto set = (*q)->select(0, 10, {});
  EXPECT_FALSE(set->next());
  EXPECT_FALSE(set->err().is_ok());
}

// One writer (the collection cycle) and reader threads querying meanwhile.
// Every reader checks what it sees is a consistent prefix: for each series
// the cycles up to k with values equal to the cycle number, the same k for all
// series, and no cycle committed after the querier was created.
TEST(Head, ConcurrentAppendsAndQueries) {
  HeadOptions opt;
  opt.chunk_max_samples = 64;  // many cuts during the test
  Head head(opt);
  constexpr int kSeries = 50, kCycles = 400;
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, queries{0}, committing{0};
  std::thread writer([&] {
    std::vector<storage::SeriesRef> refs(kSeries, 0);
    std::vector<Labels> labels;
    for (int s = 0; s < kSeries; ++s) labels.push_back(metric("m", std::to_string(s)));
    for (int c = 1; c <= kCycles; ++c) {
      committing = c;  // before the commit: a querier can only see cycles <= committing
      auto app = head.appender();
      for (int s = 0; s < kSeries; ++s) {
        auto r = app->append(refs[s], labels[s], c * 1000, c);
        if (!r)
          ++bad;
        else
          refs[s] = *r;
      }
      if (!app->commit().is_ok()) ++bad;
      if (c % 100 == 0) head.truncate_before((c - 150) * 1000);
      if (c % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));  // give readers turns
    }
    stop = true;
  });
  std::vector<std::thread> readers;
  for (int i = 0; i < 3; ++i) {
    readers.emplace_back([&] {
      while (!stop) {
        auto q = head.querier(0, 1'000'000);
        if (!q) {
          ++bad;
          continue;
        }
        int upper = committing.load();
        std::this_thread::sleep_for(std::chrono::microseconds(300));  // let commits happen meanwhile
        auto set = (*q)->select(0, 1'000'000, {{Type::kEq, "__name__", "m"}});
        int64_t newest = -1;
        while (set->next()) {
          auto it = set->at().iterator();
          int64_t prev = -1, last = -1;
          while (it->next()) {
            Sample s = it->at();
            if (s.v != static_cast<double>(s.t_ms / 1000) || (prev >= 0 && s.t_ms != prev + 1000)) ++bad;
            prev = last = s.t_ms;
          }
          if (!it->err().is_ok()) ++bad;
          // All series end at the same cycle for one querier (isolation).
          if (last > int64_t{upper} * 1000) ++bad;  // a commit made after the querier
          if (newest < 0)
            newest = last;
          else if (last != newest)
            ++bad;
        }
        ++queries;
      }
    });
  }
  writer.join();
  for (auto& r : readers) r.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(queries.load(), 0);
  auto got = query(head, 0, 1'000'000, {{Type::kEq, "__name__", "m"}});
  ASSERT_EQ(got.size(), static_cast<size_t>(kSeries));
  EXPECT_EQ(got[0].samples.back().t_ms, kCycles * 1000);
}

// Several appenders at once on the same series (each claims some, checks the
// others through its map), with retention removing series that only one
// writer feeds, and a reader: every series keeps strictly increasing
// timestamps, and every sample an append() accepted is either applied or
// rejected by its commit (no timestamps repeat, so nothing is ignored).
// Meant for ThreadSanitizer too.
TEST(Head, ConcurrentAppendersOnSharedSeries) {
  HeadOptions opt;
  opt.chunk_max_samples = 32;
  Head head(opt);
  constexpr int kWriters = 4, kShared = 40, kCycles = 300;
  std::atomic<uint64_t> accepted{0}, rejected_at_commit{0};
  std::atomic<int> bad{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::vector<storage::SeriesRef> refs(kShared, 0);
      std::vector<Labels> labels;
      for (int s = 0; s < kShared; ++s) labels.push_back(metric("shared", std::to_string(s)));
      for (int c = 1; c <= kCycles; ++c) {
        auto app = head.appender();
        uint64_t ok = 0;
        for (int s = 0; s < kShared; ++s) {
          // Two samples per series and cycle: the second is checked against the first.
          const int64_t t = c * 1000 + w * 10;
          for (int64_t dt : {0, 1}) {
            auto r = app->append(refs[s], labels[s], t + dt, static_cast<double>(w));
            if (r) {
              refs[s] = *r;
              ++ok;
            }
          }
        }
        // Writer 0 also feeds series that stop after cycle 100, so retention removes them.
        if (w == 0 && c <= 100) {
          for (int s = 0; s < 5; ++s) {
            if (app->append(0, metric("short", std::to_string(s)), c * 1000, 1)) ++ok;
          }
        }
        accepted += ok;
        Status st = app->commit();  // may reject what another writer committed newer meanwhile
        if (!st) rejected_at_commit += std::stoull(st.message());  // "N samples rejected at commit ..."
        if (w == 0 && c % 50 == 0) head.truncate_before((c - 20) * 1000);
      }
    });
  }
  std::thread reader([&] {
    while (!stop) {
      for (const auto& g : query(head, 0, 1'000'000, {{Type::kRe, "__name__", ".+"}})) {
        for (size_t i = 1; i < g.samples.size(); ++i) {
          if (g.samples[i].t_ms <= g.samples[i - 1].t_ms) ++bad;
        }
      }
    }
  });
  for (auto& t : writers) t.join();
  stop = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(head.counters().samples_appended, accepted.load() - rejected_at_commit.load());
  EXPECT_GT(head.counters().samples_appended, static_cast<uint64_t>(kShared * kCycles));
  EXPECT_EQ(query(head, 0, 1'000'000, {{Type::kEq, "__name__", "short"}}).size(), 0u);
}

}  // namespace
}  // namespace llmon::tsdb
