// Restoring the `for` state of alerts from ALERTS_FOR_STATE after a restart
// (Prometheus's RestoreForState): within and beyond the outage tolerance,
// the grace period, already-firing alerts, short `for`, stale series.
#include <gtest/gtest.h>

#include "rules/eval_fixture.h"
#include "rules/group.h"

namespace llmon::rules {
namespace {

using testing::alert_rule;
using testing::EvalEnv;
using testing::group_spec;
using testing::kMin;

class EvalRestore : public ::testing::Test {
 protected:
  void SetUp() override { env_.load("x{job=\"j\"} 1x200"); }

  // The first run: evaluates every minute from 0 to `last` (the alert is
  // active from 0, so ALERTS_FOR_STATE holds 0 up to `last`).
  void first_run(int64_t for_ms, int last) {
    auto g = env_.make_group(group_spec("g", {alert_rule("A", "x > 0", for_ms)}));
    for (int m = 0; m <= last; ++m) g->eval(m * kMin);
  }

  // The restarted group: unrestored, two evaluations, then restore at now.
  std::unique_ptr<Group> restart(int64_t for_ms, int64_t first_eval_ms, int64_t now_ms) {
    auto opts = env_.options();
    opts.restored = false;
    auto g = env_.make_group(group_spec("g", {alert_rule("A", "x > 0", for_ms)}), opts);
    g->eval(first_eval_ms);
    g->eval(first_eval_ms + kMin);
    EXPECT_TRUE(env_.raw(R"(ALERTS_FOR_STATE{alertname="A", job="j"})", first_eval_ms, first_eval_ms + kMin).empty())
        << "an unrestored rule writes nothing";
    g->restore_for_state(now_ms);
    return g;
  }

  int64_t active_at(const Group& g) {
    auto a = g.alerts_of(0, true);
    EXPECT_EQ(a.size(), 1u);
    return a.empty() ? -1 : a[0].active_at_ms;
  }

  EvalEnv env_;
};

TEST_F(EvalRestore, WithinToleranceShiftsActiveAtByTheDowntime) {
  first_run(30 * kMin, 20);
  auto g = restart(30 * kMin, 25 * kMin, 26 * kMin);
  // Down at 20m with 10m of `for` left (not less than the 10m grace period):
  // ActiveAt moves forward by the 6m between going down and restoring.
  EXPECT_EQ(active_at(*g), 6 * kMin);
  g->eval(27 * kMin);
  EXPECT_EQ(env_.query("ALERTS_FOR_STATE", 27 * kMin), R"({__name__="ALERTS_FOR_STATE", alertname="A", job="j"} 360)");
  for (int m = 28; m <= 35; ++m) g->eval(m * kMin);
  EXPECT_EQ(g->alerts_of(0, false).at(0).state, AlertState::kPending);
  g->eval(36 * kMin);
  EXPECT_EQ(g->alerts_of(0, false).at(0).state, AlertState::kFiring);
}

TEST_F(EvalRestore, LessThanGracePeriodLeftFiresAfterTheGracePeriod) {
  first_run(25 * kMin, 20);
  auto g = restart(25 * kMin, 25 * kMin, 26 * kMin);
  // 5m left < 10m grace: ActiveAt = now + grace - for.
  EXPECT_EQ(active_at(*g), 26 * kMin + 10 * kMin - 25 * kMin);
}

TEST_F(EvalRestore, AlreadyFiringKeepsItsOriginalActiveAt) {
  first_run(15 * kMin, 20);
  auto g = restart(15 * kMin, 25 * kMin, 26 * kMin);
  EXPECT_EQ(active_at(*g), 0);
  g->eval(27 * kMin);
  auto a = g->alerts_of(0, false).at(0);
  EXPECT_EQ(a.state, AlertState::kFiring);
  EXPECT_EQ(a.fired_at_ms, 27 * kMin);
}

TEST_F(EvalRestore, BeyondOutageToleranceNothingIsRestored) {
  first_run(30 * kMin, 20);
  // The last ALERTS_FOR_STATE sample (20m) is more than 1h before 90m.
  auto g = restart(30 * kMin, 89 * kMin, 90 * kMin);
  EXPECT_EQ(active_at(*g), 89 * kMin);
  // ... but a longer tolerance reaches it.
  auto opts = env_.options();
  opts.restored = false;
  opts.outage_tolerance_ms = 2 * 3600 * 1000;
  auto g2 = env_.make_group(group_spec("g", {alert_rule("A", "x > 0", 30 * kMin)}), opts);
  g2->eval(89 * kMin);
  g2->eval(90 * kMin);
  g2->restore_for_state(90 * kMin);
  EXPECT_EQ(active_at(*g2), 70 * kMin);  // 0 + (90m - 20m)
}

TEST_F(EvalRestore, ForShorterThanGracePeriodIsNotRestored) {
  first_run(5 * kMin, 3);
  auto opts = env_.options();
  opts.restored = false;
  auto g = env_.make_group(group_spec("g", {alert_rule("A", "x > 0", 5 * kMin)}), opts);
  g->eval(6 * kMin);
  g->eval(7 * kMin);
  g->restore_for_state(7 * kMin);
  EXPECT_EQ(active_at(*g), 6 * kMin);
  g->eval(8 * kMin);  // but it is marked restored: it writes its series now
  EXPECT_EQ(env_.query("ALERTS_FOR_STATE", 8 * kMin), R"({__name__="ALERTS_FOR_STATE", alertname="A", job="j"} 360)");
}

TEST_F(EvalRestore, StaleForStateSeriesIsNotRestored) {
  EvalEnv env;
  env.load("y 1 1 1 stale");
  auto g1 = env.make_group(group_spec("g", {alert_rule("B", "y > 0", 30 * kMin)}));
  for (int m = 0; m <= 3; ++m) g1->eval(m * kMin);  // pending, dropped at 3m: ALERTS_FOR_STATE stale
  env.load("y 1 1", kMin, 10 * kMin);
  auto opts = env.options();
  opts.restored = false;
  auto g2 = env.make_group(group_spec("g", {alert_rule("B", "y > 0", 30 * kMin)}), opts);
  g2->eval(10 * kMin);
  g2->eval(11 * kMin);
  g2->restore_for_state(11 * kMin);
  auto a = g2->alerts_of(0, true);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].active_at_ms, 10 * kMin);
}

TEST_F(EvalRestore, OnlyTheSeriesWithTheAlertsExactLabelsCounts) {
  // A series with an extra label must not be taken for the alert's.
  env_.append(R"(ALERTS_FOR_STATE{alertname="A", job="j", extra="1"})", 20 * kMin, 1);
  first_run(30 * kMin, 20);
  auto g = restart(30 * kMin, 25 * kMin, 26 * kMin);
  EXPECT_EQ(active_at(*g), 6 * kMin);
}

}  // namespace
}  // namespace llmon::rules
