// The rule manager driven by a ManualClock: aligned schedule, missed
// iterations, restore after the second evaluation, reload keeping state,
// staleness for removed groups and rules, concurrent snapshots.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "rules/eval_fixture.h"
#include "rules/manager.h"

namespace llmon::rules {
namespace {

using testing::alert_rule;
using testing::EvalEnv;
using testing::group_spec;
using testing::kMin;
using testing::record_rule;

// Polls `pred` until it holds or 20 s pass.
bool eventually(const std::function<bool()>& pred) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pred();
}

class EvalManager : public ::testing::Test {
 protected:
  std::unique_ptr<Manager> make_manager() {
    ManagerOptions o;
    o.group = env_.options();
    o.max_sleep_ms = 50;
    return std::make_unique<Manager>(std::move(o));
  }
  // Moves the clock to t and waits until `group` has run `iterations` times.
  void run_until(Manager& m, int64_t t, uint64_t iterations, const std::string& key = "rules.yml;g") {
    env_.clock().set_ms(t);
    m.wake();
    ASSERT_TRUE(eventually([&] {
      auto c = m.counters();
      auto it = c.find(key);
      return it != c.end() && it->second.iterations_total >= iterations && it->second.last_eval_timestamp_ms;
    })) << "iteration "
        << iterations << " at " << t;
    // The iteration counter moves before the evaluation: wait for its end.
    ASSERT_TRUE(eventually([&] {
      auto c = m.counters().at(key);
      return c.last_evaluation_ms && *c.last_evaluation_ms == t;
    }));
  }

  EvalEnv env_;
};

TEST(EvalHash, XxHash64KnownValues) {
  EXPECT_EQ(xxhash64(""), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(xxhash64("abc"), 0x44BC2CF5AD770999ull);
}

// Offsets observed from Prometheus 2.42 evaluating these groups (file
// /tmp/reval-prom/align/rules.yml): recorded sample timestamps modulo the
// interval.
TEST(EvalHash, EvalTimestampsMatchPrometheus) {
  EvalEnv env;
  struct Case {
    const char* name;
    int64_t interval_ms;
    int64_t offset_ms;
  };
  for (const Case& c : {Case{"g", 10'000, 440}, Case{"node-disk", 7'000, 3'405},
                        Case{"a-much-longer-group-name-for-the-stripe-loop-of-xxhash", 10'000, 9'421}}) {
    auto g = env.make_group(
        group_spec(c.name, {record_rule("r", "vector(1)")}, c.interval_ms, "/tmp/reval-prom/align/rules.yml"));
    const int64_t now = 1'790'000'000'123;
    const int64_t ts = g->eval_timestamp(now);
    EXPECT_LE(ts, now) << c.name;
    EXPECT_GT(ts, now - c.interval_ms) << c.name;
    EXPECT_EQ(ts % c.interval_ms, c.offset_ms) << c.name;
  }
}

TEST_F(EvalManager, ScheduleIsAlignedAndCountsMissedIterations) {
  auto m = make_manager();
  const int64_t start = 10 * kMin + 7'000;
  env_.clock().set_ms(start);
  ASSERT_TRUE(m->update({group_spec("g", {record_rule("r", "vector(1)")})}));
  m->start();
  auto g = m->groups().at(0);
  const int64_t slot = g->eval_timestamp(start) + kMin;
  EXPECT_GT(slot, start);
  EXPECT_LE(slot, start + kMin);
  run_until(*m, slot, 1);
  EXPECT_EQ(*m->counters().at("rules.yml;g").last_eval_timestamp_ms, slot);
  run_until(*m, slot + kMin, 2);
  // Late by 3.5 intervals: two slots are skipped, the next one is used.
  run_until(*m, slot + kMin + 3 * kMin + 30'000, 5);
  auto c = m->counters().at("rules.yml;g");
  EXPECT_EQ(c.iterations_missed_total, 2u);
  EXPECT_EQ(c.iterations_total, 5u);
  EXPECT_EQ(*c.last_eval_timestamp_ms, slot + 4 * kMin);
  std::vector<int64_t> ts;
  for (const auto& s : env_.raw("r", 0, slot + 10 * kMin)) ts.push_back(s.t_ms);
  EXPECT_EQ(ts, (std::vector<int64_t>{slot, slot + kMin, slot + 4 * kMin}));
  m->stop();
}

TEST_F(EvalManager, RestoresForStateAfterTheSecondEvaluation) {
  env_.load("x 1x200");
  {
    auto prev = env_.make_group(group_spec("g", {alert_rule("A", "x > 0", 30 * kMin)}));
    for (int i = 0; i <= 20; ++i) prev->eval(i * kMin);  // "down" at 20m, active since 0
  }
  auto m = make_manager();
  env_.clock().set_ms(25 * kMin);
  ASSERT_TRUE(m->update({group_spec("g", {alert_rule("A", "x > 0", 30 * kMin)})}));
  m->start();
  auto g = m->groups().at(0);
  const int64_t slot = g->eval_timestamp(25 * kMin) + kMin;
  run_until(*m, slot, 1);
  EXPECT_TRUE(env_.raw(R"(ALERTS_FOR_STATE{alertname="A"})", slot - 1, slot + 10 * kMin).empty());
  EXPECT_EQ(g->alerts_of(0, false).at(0).active_at_ms, slot);
  run_until(*m, slot + kMin, 2);
  // Restored at the clock time of the second evaluation.
  const int64_t want = 0 + (slot + kMin - 20 * kMin);
  ASSERT_TRUE(eventually([&] { return g->alerts_of(0, false).at(0).active_at_ms == want; }));
  EXPECT_TRUE(env_.raw(R"(ALERTS_FOR_STATE{alertname="A"})", slot - 1, slot + 10 * kMin).empty());
  run_until(*m, slot + 2 * kMin, 3);
  auto fs = env_.raw(R"(ALERTS_FOR_STATE{alertname="A"})", slot - 1, slot + 10 * kMin);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].v, static_cast<double>(want / 1000));
  m->stop();
}

TEST_F(EvalManager, ReloadKeepsAlertsAndMarksRemovedRulesStale) {
  env_.load("x 1x100");
  auto m = make_manager();
  env_.clock().set_ms(0);
  auto spec = group_spec(
      "g", {alert_rule("A", "x > 0", 10 * kMin), record_rule("r1", "vector(1)"), record_rule("r2", "vector(2)")});
  ASSERT_TRUE(m->update({spec}));
  m->start();
  auto g = m->groups().at(0);
  const int64_t slot = g->eval_timestamp(0) + kMin;
  // First update: unrestored until after the second evaluation.
  run_until(*m, slot, 1);
  run_until(*m, slot + kMin, 2);
  ASSERT_TRUE(eventually([&] { return g->snapshot().rules[0].alerts.size() == 1; }));

  // The same groups again: nothing changes, the group keeps running.
  ASSERT_TRUE(m->update({spec}));
  EXPECT_EQ(m->groups().at(0).get(), g.get());

  // A changed group (r2 removed, a label on r1): a new Group takes over.
  auto spec2 = group_spec("g", {alert_rule("A", "x > 0", 10 * kMin), record_rule("r1", "vector(1)")});
  env_.clock().set_ms(slot + kMin + 10'000);
  ASSERT_TRUE(m->update({spec2}));
  auto g2 = m->groups().at(0);
  EXPECT_NE(g2.get(), g.get());
  auto a = g2->alerts_of(0, false);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].active_at_ms, slot);                               // `for` state carried over
  EXPECT_EQ(m->counters().at("rules.yml;g").iterations_total, 2u);  // counters carried over
  run_until(*m, slot + 2 * kMin, 3);
  // r2's series got a staleness marker at the new group's first evaluation.
  auto r2 = env_.raw("r2", 0, slot + 10 * kMin);
  ASSERT_EQ(r2.size(), 3u);
  EXPECT_EQ(r2[2].t_ms, slot + 2 * kMin);
  EXPECT_TRUE(model::is_stale(r2[2].v));
  // r1 goes on without a marker; the alert (restored by the reload) is written.
  EXPECT_EQ(env_.raw("r1", 0, slot + 10 * kMin).size(), 3u);
  EXPECT_EQ(env_.query("ALERTS_FOR_STATE", slot + 2 * kMin),
            R"({__name__="ALERTS_FOR_STATE", alertname="A"} )" + std::to_string(slot / 1000));
  m->stop();
}

TEST_F(EvalManager, RemovedGroupIsMarkedStaleTwoIntervalsLater) {
  auto m = make_manager();
  ASSERT_TRUE(m->update(
      {group_spec("g", {record_rule("r", "vector(1)")}), group_spec("h", {record_rule("keep", "vector(1)")})}));
  m->start();
  auto g = m->groups().at(0);
  ASSERT_EQ(g->name(), "g");
  const int64_t slot = g->eval_timestamp(0) + kMin;
  run_until(*m, slot, 1);
  const int64_t removed_at = slot + 10'000;
  env_.clock().set_ms(removed_at);
  ASSERT_TRUE(m->update({group_spec("h", {record_rule("keep", "vector(1)")})}));
  ASSERT_EQ(m->groups().size(), 1u);
  EXPECT_EQ(m->counters().count("rules.yml;g"), 0u);
  env_.clock().set_ms(removed_at + 2 * kMin);
  m->wake();
  ASSERT_TRUE(eventually([&] { return env_.raw("r", 0, removed_at + 10 * kMin).size() == 2; }));
  auto r = env_.raw("r", 0, removed_at + 10 * kMin);
  EXPECT_EQ(r[1].t_ms, removed_at);
  EXPECT_TRUE(model::is_stale(r[1].v));
  m->stop();
}

TEST_F(EvalManager, StopWritesNoStalenessMarkers) {
  auto m = make_manager();
  ASSERT_TRUE(m->update({group_spec("g", {record_rule("r", "vector(1)")})}));
  m->start();
  const int64_t slot = m->groups().at(0)->eval_timestamp(0) + kMin;
  run_until(*m, slot, 1);
  m->stop();
  m->stop();  // idempotent
  auto r = env_.raw("r", 0, slot + 10 * kMin);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(model::is_stale(r[0].v));
}

TEST_F(EvalManager, RejectsDuplicateGroupsAndKeepsThePreviousOnes) {
  auto m = make_manager();
  ASSERT_TRUE(m->update({group_spec("g", {record_rule("r", "vector(1)")})}));
  auto st = m->update({group_spec("x", {record_rule("r", "vector(1)")}), group_spec("x", {record_rule("r", "1")})});
  EXPECT_FALSE(st);
  EXPECT_EQ(st.message(), "rules.yml: groupname: \"x\" is repeated in the same file");
  ASSERT_EQ(m->snapshot().size(), 1u);
  EXPECT_EQ(m->snapshot()[0].name, "g");
}

TEST_F(EvalManager, SnapshotsAreSortedByFileThenName) {
  auto m = make_manager();
  ASSERT_TRUE(m->update({group_spec("b", {record_rule("r", "vector(1)")}, kMin, "2.yml"),
                         group_spec("z", {record_rule("r", "vector(1)")}, kMin, "1.yml"),
                         group_spec("a", {record_rule("r", "vector(1)")}, kMin, "2.yml")}));
  auto s = m->snapshot();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].file + ":" + s[0].name, "1.yml:z");
  EXPECT_EQ(s[1].file + ":" + s[1].name, "2.yml:a");
  EXPECT_EQ(s[2].file + ":" + s[2].name, "2.yml:b");
}

// Readers take snapshots while the groups evaluate and reload (run under
// ThreadSanitizer to check for races).
TEST_F(EvalManager, ConcurrentSnapshotsDuringEvaluationAndReload) {
  env_.load("x 1x100");
  auto m = make_manager();
  auto spec =
      group_spec("g", {alert_rule("A", "x > 0", 2 * kMin, {}, {{"s", "{{ $value }}"}}), record_rule("r", "sum(x)")});
  ASSERT_TRUE(m->update({spec, group_spec("h", {record_rule("q", "vector(1)")})}));
  m->start();
  std::atomic<bool> done{false};
  std::atomic<uint64_t> reads{0};
  std::thread reader([&] {
    while (!done) {
      for (const auto& g : m->snapshot())
        for (const auto& r : g.rules) reads += r.alerts.size() + (r.health == RuleHealth::kOk ? 1 : 0);
      m->counters();
    }
  });
  const int64_t slot = m->groups().at(0)->eval_timestamp(0) + kMin;
  for (int i = 0; i < 6; ++i) run_until(*m, slot + i * kMin, i + 1);
  spec.rules.push_back(record_rule("r3", "vector(3)"));
  ASSERT_TRUE(m->update({spec}));
  for (int i = 6; i < 9; ++i) run_until(*m, slot + i * kMin, i + 1);
  done = true;
  reader.join();
  m->stop();
  EXPECT_GT(reads.load(), 0u);
  auto s = m->snapshot();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rules.size(), 3u);
  EXPECT_EQ(s[0].rules[0].alerts.at(0).state, AlertState::kFiring);
}

}  // namespace
}  // namespace llmon::rules
