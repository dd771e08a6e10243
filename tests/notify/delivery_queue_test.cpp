// The persistent delivery queue: ordering, backoff on an injected clock and
// RNG, permanent failures, expiry, eviction, compaction, recovery of a
// damaged file, and the directory lock.
#include "notify/delivery/delivery_queue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "notify/delivery_receiver.h"

namespace llmon::notify {
namespace {

using testing::eventually;
using testing::ScopedTempDir;

// Records every delivery; answers from a script (then kDelivered).
class FakeTarget : public DeliveryTarget {
 public:
  explicit FakeTarget(const base::Clock& clock, std::vector<DeliveryOutcome> script = {})
      : clock_(clock), script_(std::move(script)) {}
  DeliveryResult deliver(const QueuedJob& job) override {
    std::lock_guard lock(mu_);
    calls_.push_back(Call{job.id, std::string(job.kind), std::string(job.payload), job.attempts, clock_.now_ms()});
    const DeliveryOutcome o = next_ < script_.size() ? script_[next_++] : DeliveryOutcome::kDelivered;
    return {o, o == DeliveryOutcome::kDelivered ? "" : "scripted failure " + std::to_string(next_)};
  }
  void dropped(const QueuedJob& job, std::string_view reason) override {
    std::lock_guard lock(mu_);
    dropped_.emplace_back(std::string(job.payload), std::string(reason));
  }
  struct Call {
    uint64_t id;
    std::string kind, payload;
    uint32_t attempts;
    int64_t at_ms;
  };
  std::vector<Call> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  std::vector<std::pair<std::string, std::string>> dropped_jobs() const {
    std::lock_guard lock(mu_);
    return dropped_;
  }

 private:
  const base::Clock& clock_;
  mutable std::mutex mu_;
  std::vector<DeliveryOutcome> script_;
  size_t next_ = 0;
  std::vector<Call> calls_;
  std::vector<std::pair<std::string, std::string>> dropped_;
};

DeliveryQueueOptions options(const std::string& dir) {
  DeliveryQueueOptions o;
  o.dir = dir;
  o.fsync = FsyncPolicy::kNever;
  return o;
}

const TargetMetrics* find(const DeliveryMetrics& m, const std::string& target) {
  for (const auto& t : m.targets)
    if (t.target == target) return &t;
  return nullptr;
}

// A copy of one target's metrics (empty when the queue does not know it).
TargetMetrics metrics_of(const DeliveryQueue& q, const std::string& target) {
  const DeliveryMetrics m = q.metrics();
  const TargetMetrics* t = find(m, target);
  return t ? *t : TargetMetrics{};
}

TEST(DeliveryBackoff, ExponentialCappedJittered) {
  BackoffPolicy p;  // 1s, x2, 5m, ±20%
  EXPECT_EQ(backoff_delay_ms(p, 1, 0.5), 1000);
  EXPECT_EQ(backoff_delay_ms(p, 2, 0.5), 2000);
  EXPECT_EQ(backoff_delay_ms(p, 3, 0.5), 4000);
  EXPECT_EQ(backoff_delay_ms(p, 9, 0.5), 256000);
  EXPECT_EQ(backoff_delay_ms(p, 10, 0.5), 300000);  // 512s capped at 5 min
  EXPECT_EQ(backoff_delay_ms(p, 1000000, 0.5), 300000);
  EXPECT_EQ(backoff_delay_ms(p, 1, 0.0), 800);
  EXPECT_EQ(backoff_delay_ms(p, 1, 0.75), 1100);
  EXPECT_EQ(backoff_delay_ms(p, 10, 0.0), 240000);
  EXPECT_EQ(backoff_delay_ms(p, 10, 0.99), 300000);  // jitter never exceeds the cap
  p.jitter = 0;
  EXPECT_EQ(backoff_delay_ms(p, 2, 0.9), 2000);
  p.initial_ms = 0;
  EXPECT_EQ(backoff_delay_ms(p, 1, 0.5), 1);  // never zero
}

TEST(DeliveryQueue, DeliversInOrderOncePerJob) {
  ScopedTempDir dir;
  base::ManualClock clock(1'000'000);
  auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  auto a = std::make_shared<FakeTarget>(clock);
  auto b = std::make_shared<FakeTarget>(clock);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE((*q)->enqueue("a", "webhook", "a" + std::to_string(i)));
    ASSERT_TRUE((*q)->enqueue("b", "email", "b" + std::to_string(i)));
  }
  ASSERT_TRUE((*q)->add_target("a", a));
  ASSERT_TRUE((*q)->add_target("b", b));
  EXPECT_FALSE((*q)->add_target("a", a));  // once per name
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  for (auto [t, prefix, kind] : {std::tuple{a.get(), "a", "webhook"}, std::tuple{b.get(), "b", "email"}}) {
    const auto calls = t->calls();
    ASSERT_EQ(calls.size(), 5u);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(calls[i].payload, prefix + std::to_string(i));
      EXPECT_EQ(calls[i].kind, kind);
      EXPECT_EQ(calls[i].attempts, 0u);
    }
  }
  const DeliveryMetrics m = (*q)->metrics();
  EXPECT_EQ(m.total.queued_total, 10u);
  EXPECT_EQ(m.total.delivered_total, 10u);
  EXPECT_EQ(m.total.queue_length, 0u);
  ASSERT_NE(find(m, "a"), nullptr);
  EXPECT_EQ(find(m, "a")->delivered_total, 5u);
  EXPECT_TRUE(find(m, "a")->registered);
  EXPECT_TRUE((*q)->recent_failures().empty());
}

TEST(DeliveryQueue, RetriesWithBackoffFromTheInjectedClockAndRng) {
  ScopedTempDir dir;
  const int64_t t0 = 5'000'000;
  base::ManualClock clock(t0);
  std::vector<double> rolls{0.5, 0.0, 0.75};
  size_t roll = 0;
  auto q = DeliveryQueue::open(options(dir.path()), clock, [&] { return rolls[roll++ % rolls.size()]; });
  ASSERT_TRUE(q) << q.error();
  auto t = std::make_shared<FakeTarget>(
      clock, std::vector{DeliveryOutcome::kRetry, DeliveryOutcome::kRetry, DeliveryOutcome::kRetry});
  ASSERT_TRUE((*q)->enqueue("t", "webhook", "payload"));
  ASSERT_TRUE((*q)->add_target("t", t));
  // Attempt 1 at t0 fails: next try after 1000 ms × (1 + 0.2×(2×0.5−1)) = 1000.
  ASSERT_TRUE(eventually([&] { return metrics_of(**q, "t").next_attempt_ms == t0 + 1000; }));
  EXPECT_EQ(t->calls().size(), 1u);
  clock.set_ms(t0 + 1000);
  (*q)->wake();
  // Attempt 2 fails: 2000 ms × 0.8 (roll 0.0) = 1600.
  ASSERT_TRUE(eventually([&] { return metrics_of(**q, "t").next_attempt_ms == t0 + 2600; }));
  clock.set_ms(t0 + 2600);
  (*q)->wake();
  // Attempt 3 fails: 4000 ms × 1.1 (roll 0.75) = 4400.
  ASSERT_TRUE(eventually([&] { return metrics_of(**q, "t").next_attempt_ms == t0 + 7000; }));
  clock.set_ms(t0 + 7000);
  (*q)->wake();
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  const auto calls = t->calls();
  ASSERT_EQ(calls.size(), 4u);
  const int64_t want_at[] = {t0, t0 + 1000, t0 + 2600, t0 + 7000};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(calls[i].at_ms, want_at[i]) << i;
    EXPECT_EQ(calls[i].attempts, i) << i;
  }
  const TargetMetrics m = metrics_of(**q, "t");
  EXPECT_EQ(m.retried_total, 3u);
  EXPECT_EQ(m.delivered_total, 1u);
  const auto failures = (*q)->recent_failures();
  ASSERT_EQ(failures.size(), 3u);
  EXPECT_EQ(failures[0].attempt, 3u);  // newest first
  EXPECT_EQ(failures[0].time_ms, t0 + 2600);
  EXPECT_EQ(failures[0].error, "scripted failure 3");
  EXPECT_FALSE(failures[0].permanent);
  EXPECT_EQ(failures[2].attempt, 1u);
  EXPECT_EQ(failures[2].target, "t");
}

TEST(DeliveryQueue, PermanentFailureIsNeverRetried) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  auto t = std::make_shared<FakeTarget>(clock, std::vector{DeliveryOutcome::kFailed});
  ASSERT_TRUE((*q)->enqueue("t", "webhook", "bad"));
  ASSERT_TRUE((*q)->enqueue("t", "webhook", "good"));
  ASSERT_TRUE((*q)->add_target("t", t));
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  clock.advance_ms(3600 * 1000);
  (*q)->wake();
  const auto calls = t->calls();
  ASSERT_EQ(calls.size(), 2u);  // FIFO: "good" went after "bad" was given up
  EXPECT_EQ(calls[0].payload, "bad");
  EXPECT_EQ(calls[1].payload, "good");
  const TargetMetrics m = metrics_of(**q, "t");
  EXPECT_EQ(m.failed_total, 1u);
  EXPECT_EQ(m.delivered_total, 1u);
  EXPECT_EQ(m.retried_total, 0u);
  const auto failures = (*q)->recent_failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_TRUE(failures[0].permanent);
}

TEST(DeliveryQueue, JobsOlderThanMaxAgeAreDropped) {
  ScopedTempDir dir;
  base::ManualClock clock(1'000'000);
  DeliveryQueueOptions o = options(dir.path());
  o.max_age_ms = 10'000;
  auto q = DeliveryQueue::open(o, clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  auto t = std::make_shared<FakeTarget>(clock, std::vector<DeliveryOutcome>(100, DeliveryOutcome::kRetry));
  ASSERT_TRUE((*q)->enqueue("t", "webhook", "old"));
  ASSERT_TRUE((*q)->add_target("t", t));
  ASSERT_TRUE(eventually([&] { return metrics_of(**q, "t").retried_total == 1; }));
  clock.advance_ms(10'001);
  (*q)->wake();
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  const TargetMetrics m = metrics_of(**q, "t");
  EXPECT_EQ(m.dropped_total, 1u);
  ASSERT_EQ(t->dropped_jobs().size(), 1u);
  EXPECT_EQ(t->dropped_jobs()[0].first, "old");
  EXPECT_NE(t->dropped_jobs()[0].second.find("expired"), std::string::npos);
  EXPECT_TRUE((*q)->recent_failures()[0].permanent);
  // A per-target max age overrides the queue's.
  auto short_lived = std::make_shared<FakeTarget>(clock, std::vector<DeliveryOutcome>(100, DeliveryOutcome::kRetry));
  ASSERT_TRUE((*q)->add_target("s", short_lived, TargetOptions{500}));
  ASSERT_TRUE((*q)->enqueue("s", "webhook", "x"));
  ASSERT_TRUE(eventually([&] { return metrics_of(**q, "s").retried_total == 1; }));
  clock.advance_ms(501);
  (*q)->wake();
  ASSERT_TRUE(eventually([&] { return metrics_of(**q, "s").dropped_total == 1; }));
}

TEST(DeliveryQueue, FullQueueEvictsTheOldestAndUnregisteredTargetsWait) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  DeliveryQueueOptions o = options(dir.path());
  o.max_jobs = 3;
  auto q = DeliveryQueue::open(o, clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*q)->enqueue(i % 2 ? "odd" : "even", "webhook", std::to_string(i)));
  EXPECT_EQ((*q)->size(), 3u);
  DeliveryMetrics m = (*q)->metrics();
  EXPECT_EQ(m.total.dropped_total, 2u);
  EXPECT_EQ(find(m, "even")->dropped_total, 1u);  // job "0"
  EXPECT_EQ(find(m, "odd")->dropped_total, 1u);   // job "1"
  EXPECT_FALSE(find(m, "even")->registered);
  auto even = std::make_shared<FakeTarget>(clock);
  ASSERT_TRUE((*q)->add_target("even", even));
  ASSERT_TRUE(eventually([&] { return even->calls().size() == 2; }));
  EXPECT_EQ(even->calls()[0].payload, "2");
  EXPECT_EQ(even->calls()[1].payload, "4");
  EXPECT_EQ((*q)->size(), 1u);  // "3" waits for "odd"
}

TEST(DeliveryQueue, RejectsOversizedPayloadsAndEmptyTargets) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  DeliveryQueueOptions o = options(dir.path());
  o.max_payload_bytes = 10;
  auto q = DeliveryQueue::open(o, clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  auto r = (*q)->enqueue("t", "webhook", std::string(11, 'x'));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("over the 10-byte limit"), std::string::npos) << r.error();
  EXPECT_FALSE((*q)->enqueue("", "webhook", "x"));
  EXPECT_TRUE((*q)->enqueue("t", "webhook", std::string(10, 'x')));
}

TEST(DeliveryQueue, SurvivesReopenWithAttemptsAndWithoutAckedJobs) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  {
    auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
    ASSERT_TRUE(q) << q.error();
    auto t = std::make_shared<FakeTarget>(clock, std::vector{DeliveryOutcome::kDelivered, DeliveryOutcome::kRetry});
    ASSERT_TRUE((*q)->enqueue("t", "webhook", "first"));
    ASSERT_TRUE((*q)->enqueue("t", "webhook", "second"));
    ASSERT_TRUE((*q)->enqueue("later", "exec", "third"));
    ASSERT_TRUE((*q)->add_target("t", t));
    ASSERT_TRUE(eventually([&] { return metrics_of(**q, "t").retried_total == 1; }));
  }
  auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ((*q)->recovery().jobs_recovered, 2u);
  EXPECT_TRUE((*q)->recovery().problems.empty());
  auto t = std::make_shared<FakeTarget>(clock);
  auto later = std::make_shared<FakeTarget>(clock);
  ASSERT_TRUE((*q)->add_target("t", t));
  ASSERT_TRUE((*q)->add_target("later", later));
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  ASSERT_EQ(t->calls().size(), 1u);
  EXPECT_EQ(t->calls()[0].payload, "second");
  EXPECT_EQ(t->calls()[0].attempts, 1u);  // the failed attempt was remembered
  ASSERT_EQ(later->calls().size(), 1u);
  EXPECT_EQ(later->calls()[0].payload, "third");
  EXPECT_EQ(later->calls()[0].kind, "exec");
}

TEST(DeliveryQueue, CompactsWhenMostlyAcked) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  DeliveryQueueOptions o = options(dir.path());
  o.compact_min_bytes = 1;
  auto q = DeliveryQueue::open(o, clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  auto t = std::make_shared<FakeTarget>(clock);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE((*q)->enqueue("t", "webhook", std::string(100, 'p')));
  ASSERT_TRUE((*q)->add_target("t", t));
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  const DeliveryMetrics m = (*q)->metrics();
  EXPECT_GT(m.compactions_total, 1u);  // one at open (new file), more as acks piled up
  EXPECT_EQ(m.file_bytes, queue_file::kMagic.size());
  EXPECT_EQ(std::filesystem::file_size(dir.path() + "/queue.log"), queue_file::kMagic.size());
}

TEST(DeliveryQueue, DamagedFileIsSalvagedAndKeptAside) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  {
    auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
    ASSERT_TRUE(q) << q.error();
    ASSERT_TRUE((*q)->enqueue("t", "webhook", "one"));
    ASSERT_TRUE((*q)->enqueue("t", "webhook", "two"));
  }
  const std::string path = dir.path() + "/queue.log";
  {
    std::ofstream f(path, std::ios::app | std::ios::binary);
    f << std::string("\x40\x00\x00\x00torn", 8);  // half a record, as after a crash mid-append
  }
  {
    auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
    ASSERT_TRUE(q) << q.error();
    EXPECT_EQ((*q)->recovery().jobs_recovered, 2u);
    EXPECT_EQ((*q)->recovery().torn_tail_bytes, 8u);
    ASSERT_FALSE((*q)->recovery().problems.empty());
    EXPECT_NE((*q)->recovery().problems[0].find("torn tail of 8 bytes"), std::string::npos)
        << (*q)->recovery().problems[0];
    EXPECT_TRUE(std::filesystem::exists(path + ".corrupt"));
    ASSERT_TRUE((*q)->enqueue("t", "webhook", "three"));
  }
  auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  EXPECT_TRUE((*q)->recovery().problems.empty());
  EXPECT_EQ((*q)->recovery().jobs_recovered, 3u);
  auto t = std::make_shared<FakeTarget>(clock);
  ASSERT_TRUE((*q)->add_target("t", t));
  ASSERT_TRUE(eventually([&] { return t->calls().size() == 3; }));
  EXPECT_EQ(t->calls()[0].payload, "one");
  EXPECT_EQ(t->calls()[2].payload, "three");
}

TEST(DeliveryQueue, GarbageFileNeverPreventsStartUp) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  {
    std::ofstream f(dir.path() + "/queue.log", std::ios::binary);
    f << "this is not a queue file at all\n";
  }
  auto q = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ((*q)->recovery().jobs_recovered, 0u);
  EXPECT_GT((*q)->recovery().corrupt_bytes, 0u);
  EXPECT_TRUE((*q)->enqueue("t", "webhook", "fresh"));
}

TEST(DeliveryQueue, DirectoryIsLockedWhileOpen) {
  ScopedTempDir dir;
  base::ManualClock clock(1000);
  auto first = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_TRUE(first) << first.error();
  auto second = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().find("in use"), std::string::npos) << second.error();
  first->reset();
  auto third = DeliveryQueue::open(options(dir.path()), clock, nullptr);
  EXPECT_TRUE(third) << third.error();
}

}  // namespace
}  // namespace llmon::notify
