// Dispatcher with a fake clock: group_wait, group_interval, repeat_interval,
// resolved flushes (per integration send_resolved), resolve_timeout, merging,
// silences and inhibition, callback refusal, limits, and the run() loop.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "notify/routing/dispatcher.h"

namespace llmon::notify {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;
constexpr int64_t kS = 1000;
constexpr int64_t kM = 60 * kS;

NotifyConfig config(const std::string& yaml) {
  auto c = parse_notify_config(yaml, "t.yml");
  EXPECT_TRUE(c.has_value()) << c.error();
  return c.has_value() ? *c : NotifyConfig{};
}

constexpr const char* kBasic = R"(route:
  receiver: team
  group_by: [alertname]
  group_wait: 30s
  group_interval: 5m
  repeat_interval: 1h
  routes:
    - matchers: [team="null"]
      receiver: blackhole
    - matchers: [page="yes"]
      receiver: pager
      continue: true
receivers:
  - name: team
    webhook_configs: [{url: 'http://127.0.0.1:9/hook'}]
    email_configs: [{to: a@b, from: c@d, smarthost: 'h:25'}]
  - name: pager
    exec_configs: [{command: [/bin/true]}]
  - name: blackhole
inhibit_rules:
  - source_matchers: [severity="critical"]
    target_matchers: [severity="warning"]
    equal: [instance]
)";

struct Sent {
  std::string integration;
  Notification n;
  std::vector<std::string> names() const {  // "alertname/instance:status"
    std::vector<std::string> out;
    for (const auto& a : n.alerts)
      out.push_back(std::string(a.label("alertname")) + "/" + std::string(a.label("instance")) + ":" +
                    (a.resolved_at(n.created_ms) ? "resolved" : "firing"));
    return out;
  }
};

class DispatchTest : public ::testing::Test {
 protected:
  void make(const std::string& yaml, DispatcherOptions opts = {}, Dispatcher::MuteFn mute = {}) {
    cfg_ = config(yaml);
    d_ = std::make_unique<Dispatcher>(
        cfg_, clock_,
        [this](const Integration& in, const Notification& n) {
          if (refuse_) return false;
          sent_.push_back({in.name, n});
          return true;
        },
        opts, std::move(mute));
  }
  static Alert alert(LabelPairs labels, int64_t starts = 0, int64_t ends = 0) {
    Alert a;
    a.labels = std::move(labels);
    std::sort(a.labels.begin(), a.labels.end());
    a.starts_at_ms = starts;
    a.ends_at_ms = ends;
    return a;
  }
  void put(std::vector<Alert> alerts) {
    Status s = d_->put(alerts);
    EXPECT_TRUE(s.is_ok()) << s.message();
  }
  // Ticks at every deadline up to and including t, then sets the clock to t.
  void run_until(int64_t t) {
    for (int guard = 0; guard < 100000; ++guard) {
      int64_t next = d_->next_deadline_ms();
      if (next > t) break;
      next = std::max(next, clock_.now_ms());
      clock_.set_ms(next);
      d_->tick(next);
    }
    clock_.set_ms(t);
  }
  std::vector<Sent> take() { return std::exchange(sent_, {}); }

  base::ManualClock clock_{kT0};
  NotifyConfig cfg_;
  std::unique_ptr<Dispatcher> d_;
  std::vector<Sent> sent_;
  bool refuse_ = false;
};

TEST_F(DispatchTest, GroupWaitThenGroupInterval) {
  make(kBasic);
  const int64_t far = kT0 + 10 * 60 * kM;
  put({alert({{"alertname", "A"}, {"instance", "1"}}, kT0, far)});
  run_until(kT0 + 30 * kS - 1);
  EXPECT_TRUE(take().empty()) << "notified before group_wait";
  run_until(kT0 + 30 * kS);
  auto s = take();
  ASSERT_EQ(s.size(), 2u);  // webhook and email of receiver "team"
  EXPECT_EQ(s[0].integration, "email[0]");
  EXPECT_EQ(s[1].integration, "webhook[0]");
  EXPECT_EQ(s[1].n.receiver, "team");
  EXPECT_EQ(s[1].n.group_key, R"({}:{alertname="A"})");
  EXPECT_EQ(s[1].n.group_labels, (LabelPairs{{"alertname", "A"}}));
  EXPECT_EQ(s[1].n.created_ms, kT0 + 30 * kS);
  EXPECT_EQ(s[1].names(), std::vector<std::string>{"A/1:firing"});
  EXPECT_EQ(s[1].n.alerts[0].ends_at_ms, 0);  // firing alerts go out without an end, as in Alertmanager
  EXPECT_EQ(s[1].n.status(), "firing");

  clock_.set_ms(kT0 + 60 * kS);
  put({alert({{"alertname", "A"}, {"instance", "2"}}, kT0 + 60 * kS, far)});
  run_until(kT0 + 30 * kS + 5 * kM - 1);
  EXPECT_TRUE(take().empty()) << "notified before group_interval";
  run_until(kT0 + 30 * kS + 5 * kM);
  s = take();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].names(), (std::vector<std::string>{"A/1:firing", "A/2:firing"}));
  // Nothing changed: no notification at the next interval.
  run_until(kT0 + 30 * kS + 10 * kM);
  EXPECT_TRUE(take().empty());
}

TEST_F(DispatchTest, RepeatIntervalForUnchangedGroup) {
  make(kBasic);
  put({alert({{"alertname", "A"}}, kT0, kT0 + 100 * 60 * kM)});
  run_until(kT0 + 30 * kS);
  ASSERT_EQ(take().size(), 2u);
  // Checked every 5m; re-sent at the first check where the last one is older
  // than 1h: 1h05m30s (at exactly 1h it is not older yet).
  run_until(kT0 + 30 * kS + 60 * kM);
  EXPECT_TRUE(take().empty());
  run_until(kT0 + 30 * kS + 65 * kM);
  auto s = take();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].n.created_ms, kT0 + 30 * kS + 65 * kM);
  run_until(kT0 + 30 * kS + 125 * kM);
  EXPECT_EQ(take().size(), 0u);
  run_until(kT0 + 30 * kS + 130 * kM);
  EXPECT_EQ(take().size(), 2u);
}

TEST_F(DispatchTest, ResolvedFlushPerIntegration) {
  make(kBasic);
  const int64_t far = kT0 + 600 * kM;
  put({alert({{"alertname", "A"}, {"instance", "1"}}, kT0, far),
       alert({{"alertname", "A"}, {"instance", "2"}}, kT0, far)});
  run_until(kT0 + 30 * kS);
  ASSERT_EQ(take().size(), 2u);
  // instance 1 resolves.
  clock_.set_ms(kT0 + 2 * kM);
  put({alert({{"alertname", "A"}, {"instance", "1"}}, kT0, kT0 + 2 * kM)});
  run_until(kT0 + 30 * kS + 5 * kM);
  auto s = take();
  // The webhook (send_resolved: true) hears about it; the email (false) does not.
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].integration, "webhook[0]");
  EXPECT_EQ(s[0].names(), (std::vector<std::string>{"A/1:resolved", "A/2:firing"}));
  EXPECT_EQ(s[0].n.alerts[0].ends_at_ms, kT0 + 2 * kM);
  // The resolved alert left the group after it was notified.
  auto groups = d_->groups();
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].alerts.size(), 1u);
  EXPECT_EQ(groups[0].alerts[0].label("instance"), "2");
  // The last one resolves: webhook notified, email gets nothing (no firing alerts).
  clock_.set_ms(kT0 + 7 * kM);
  put({alert({{"alertname", "A"}, {"instance", "2"}}, kT0, kT0 + 7 * kM)});
  run_until(kT0 + 30 * kS + 10 * kM);
  s = take();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].integration, "webhook[0]");
  EXPECT_EQ(s[0].names(), std::vector<std::string>{"A/2:resolved"});
  EXPECT_EQ(s[0].n.status(), "resolved");
  EXPECT_TRUE(d_->groups().empty());
  // The empty group is removed by maintenance; nothing more is sent.
  run_until(kT0 + 5 * 60 * kM);
  EXPECT_TRUE(take().empty());
  EXPECT_EQ(d_->stats().groups, 0u);
}

TEST_F(DispatchTest, ResolveTimeoutAppliesWhenEndIsUnset) {
  make(kBasic);
  put({alert({{"alertname", "A"}})});  // no start, no end: start = now, end = now + 5m
  auto stored = d_->alerts();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].starts_at_ms, kT0);
  EXPECT_EQ(stored[0].ends_at_ms, kT0 + 5 * kM);
  run_until(kT0 + 30 * kS);
  ASSERT_EQ(take().size(), 2u);
  run_until(kT0 + 30 * kS + 5 * kM);  // resolved at 5m (not re-sent)
  auto s = take();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].names(), std::vector<std::string>{"A/:resolved"});

  // A different resolve_timeout from the options.
  DispatcherOptions o;
  o.resolve_timeout_ms = 10 * kS;
  make(kBasic, o);
  put({alert({{"alertname", "B"}})});
  EXPECT_EQ(d_->alerts()[0].ends_at_ms, clock_.now_ms() + 10 * kS);
}

TEST_F(DispatchTest, RefreshedAlertsMergeAndDoNotRenotify) {
  DispatcherOptions o;
  o.resolve_timeout_ms = kM;
  make(kBasic, o);
  // Prometheus resends every minute with a later end.
  for (int i = 0; i <= 20; ++i) {
    clock_.set_ms(kT0 + i * kM);
    run_until(kT0 + i * kM);
    put({alert({{"alertname", "A"}}, kT0, kT0 + i * kM + 4 * kM)});
  }
  run_until(kT0 + 20 * kM + 1);
  auto s = take();
  ASSERT_EQ(s.size(), 2u) << "one notification per integration, no repeats within 1h";
  EXPECT_EQ(d_->alerts()[0].starts_at_ms, kT0);
  // Sent again without an end (resolve_timeout 1m: end 22m) while the stored
  // explicit end (24m) is later: merged, the earlier start and the later
  // explicit end are kept (types.Alert.Merge).
  clock_.set_ms(kT0 + 21 * kM);
  put({alert({{"alertname", "A"}}, kT0 + 21 * kM, 0)});
  EXPECT_EQ(d_->alerts()[0].starts_at_ms, kT0);
  EXPECT_EQ(d_->alerts()[0].ends_at_ms, kT0 + 24 * kM);
  // Once that one is stored (a timeout end), a later timeout end replaces it.
  clock_.set_ms(kT0 + 22 * kM - 1);
  put({alert({{"alertname", "A"}}, kT0 + 21 * kM, 0)});
  EXPECT_EQ(d_->alerts()[0].ends_at_ms, kT0 + 23 * kM - 1);
}

TEST_F(DispatchTest, OldAlertFlushesAtOnce) {
  make(kBasic);
  put({alert({{"alertname", "Old"}}, kT0 - 10 * kM, kT0 + 60 * kM)});
  EXPECT_EQ(d_->next_deadline_ms(), kT0);
  run_until(kT0);
  EXPECT_EQ(take().size(), 2u);
}

TEST_F(DispatchTest, SilencedAlertsAreFilteredOut) {
  make(kBasic, {}, [](const LabelPairs& l, int64_t) {
    for (const auto& [k, v] : l)
      if (k == "instance" && v == "muted") return true;
    return false;
  });
  put({alert({{"alertname", "A"}, {"instance", "1"}}, kT0, kT0 + 60 * kM),
       alert({{"alertname", "A"}, {"instance", "muted"}}, kT0, kT0 + 60 * kM),
       alert({{"alertname", "B"}, {"instance", "muted"}}, kT0, kT0 + 60 * kM)});
  run_until(kT0 + 30 * kS);
  auto s = take();
  ASSERT_EQ(s.size(), 2u) << "group B is entirely silenced";
  EXPECT_EQ(s[1].names(), std::vector<std::string>{"A/1:firing"});
  EXPECT_EQ(d_->stats().alerts_muted, 2u);
}

TEST_F(DispatchTest, InhibitedAlertsAreFilteredOut) {
  make(kBasic);
  const int64_t far = kT0 + 60 * kM;
  put({alert({{"alertname", "GpuDown"}, {"instance", "gpu1"}, {"severity", "critical"}}, kT0, far),
       alert({{"alertname", "GpuHot"}, {"instance", "gpu1"}, {"severity", "warning"}}, kT0, far),
       alert({{"alertname", "GpuHot"}, {"instance", "gpu2"}, {"severity", "warning"}}, kT0, far)});
  run_until(kT0 + 30 * kS);
  std::set<std::string> webhook;
  for (const auto& s : take())
    if (s.integration == "webhook[0]")
      for (const auto& n : s.names()) webhook.insert(n);
  EXPECT_EQ(webhook, (std::set<std::string>{"GpuDown/gpu1:firing", "GpuHot/gpu2:firing"}));
  // The source resolves: the inhibited alert is notified at the next interval.
  clock_.set_ms(kT0 + kM);
  put({alert({{"alertname", "GpuDown"}, {"instance", "gpu1"}, {"severity", "critical"}}, kT0, kT0 + kM)});
  run_until(kT0 + 30 * kS + 5 * kM);
  webhook.clear();
  for (const auto& s : take())
    if (s.integration == "webhook[0]")
      for (const auto& n : s.names()) webhook.insert(n);
  EXPECT_EQ(webhook, (std::set<std::string>{"GpuDown/gpu1:resolved", "GpuHot/gpu1:firing", "GpuHot/gpu2:firing"}));
}

TEST_F(DispatchTest, ContinueAndNullReceiver) {
  make(kBasic);
  const int64_t far = kT0 + 60 * kM;
  put({alert({{"alertname", "P"}, {"page", "yes"}}, kT0, far),
       alert({{"alertname", "N"}, {"team", "null"}}, kT0, far)});
  run_until(kT0 + 30 * kS);
  auto s = take();
  ASSERT_EQ(s.size(), 1u) << "the page route (continue: true) matched; the null receiver sends nothing";
  EXPECT_EQ(s[0].integration, "exec[0]");
  EXPECT_EQ(s[0].n.receiver, "pager");
  EXPECT_EQ(s[0].n.group_key, R"({}/{page="yes"}:{alertname="P"})");
}

TEST_F(DispatchTest, RefusedNotificationIsRetriedAndKeepsResolved) {
  make(kBasic);
  put({alert({{"alertname", "A"}, {"instance", "1"}}, kT0, kT0 + kM),
       alert({{"alertname", "A"}, {"instance", "2"}}, kT0, kT0 + 600 * kM)});
  refuse_ = true;
  run_until(kT0 + 30 * kS);
  EXPECT_TRUE(take().empty());
  EXPECT_EQ(d_->stats().notifications_failed, 2u);
  run_until(kT0 + 30 * kS + 5 * kM);  // instance 1 resolved meanwhile; refused again
  EXPECT_EQ(d_->stats().notifications_failed, 4u);
  ASSERT_EQ(d_->groups().size(), 1u);
  EXPECT_EQ(d_->groups()[0].alerts.size(), 2u) << "a resolved alert stays until a flush succeeds";
  refuse_ = false;
  run_until(kT0 + 30 * kS + 10 * kM);
  auto s = take();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].integration, "email[0]");
  EXPECT_EQ(s[0].names(), std::vector<std::string>{"A/2:firing"});  // send_resolved: false
  EXPECT_EQ(s[1].names(), (std::vector<std::string>{"A/1:resolved", "A/2:firing"}));
  EXPECT_EQ(d_->groups()[0].alerts.size(), 1u);
}

TEST_F(DispatchTest, OnlyResolvedAlertsAreNotSentToAGroupNeverNotified) {
  make(kBasic);
  put({alert({{"alertname", "A"}}, kT0, kT0 + 10 * kS)});  // resolves before group_wait
  run_until(kT0 + 30 * kS);
  EXPECT_TRUE(take().empty());
  EXPECT_TRUE(d_->groups().empty()) << "the resolved alert was dropped after the (empty) flush";
}

TEST_F(DispatchTest, AlertOrderAndNotificationFields) {
  DispatcherOptions o;
  o.external_url = "http://gpu01:9101";
  make(kBasic, o);
  const int64_t far = kT0 + 60 * kM;
  put({alert({{"alertname", "A"}, {"instance", "b"}, {"job", "x"}}, kT0, far),
       alert({{"alertname", "A"}, {"zzz", "1"}}, kT0, far), alert({{"alertname", "A"}, {"instance", "a"}}, kT0, far),
       alert({{"alertname", "A"}, {"instance", "a"}, {"job", "x"}}, kT0, far)});
  run_until(kT0 + 30 * kS);
  auto s = take();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].n.external_url, "http://gpu01:9101");
  // job first (alerts without job last), then instance, then the label set.
  EXPECT_EQ(s[0].names(), (std::vector<std::string>{"A/a:firing", "A/b:firing", "A/a:firing", "A/:firing"}));
  EXPECT_EQ(s[0].n.alerts[0].label("job"), "x");
  EXPECT_EQ(s[0].n.alerts[2].label("job"), "");
}

TEST_F(DispatchTest, InvalidAlertsAreCountedAndSkipped) {
  make(kBasic);
  Status st = d_->put(
      {alert({}), alert({{"bad-name", "x"}}), alert({{"alertname", "A"}}, kT0, kT0 - 1), alert({{"alertname", "ok"}})});
  EXPECT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "alert 0: at least one label pair required");
  auto stats = d_->stats();
  EXPECT_EQ(stats.alerts_received, 4u);
  EXPECT_EQ(stats.alerts_invalid, 3u);
  EXPECT_EQ(stats.alerts, 1u);
}

TEST_F(DispatchTest, LimitsAreEnforcedAndCounted) {
  DispatcherOptions o;
  o.limits.max_groups = 2;
  o.limits.max_alerts_per_group = 3;
  make(kBasic, o);
  std::vector<Alert> alerts;
  for (int i = 0; i < 4; ++i) alerts.push_back(alert({{"alertname", "A"}, {"instance", std::to_string(i)}}));
  alerts.push_back(alert({{"alertname", "B"}}));
  alerts.push_back(alert({{"alertname", "C"}}));
  put(alerts);
  auto st = d_->stats();
  EXPECT_EQ(st.groups, 2u);
  EXPECT_EQ(st.alerts_dropped_group_full, 1u);  // A/3
  EXPECT_EQ(st.groups_limit_reached, 1u);       // C
  EXPECT_EQ(d_->groups()[0].alerts.size(), 3u);

  o = {};
  o.limits.max_alerts = 5;
  make(kBasic, o);
  alerts.clear();
  for (int i = 0; i < 8; ++i) alerts.push_back(alert({{"alertname", "A"}, {"instance", std::to_string(i)}}));
  put(alerts);
  put({alerts[0]});  // an update of a stored alert is still accepted when full
  st = d_->stats();
  EXPECT_EQ(st.alerts, 5u);
  EXPECT_EQ(st.alerts_dropped_store_full, 3u);
}

TEST(DispatchRun, ThreadTicksAtDeadlinesUntilStopped) {
  auto cfg = parse_notify_config(
      "route: {receiver: r, group_wait: 0s}\nreceivers: [{name: r, webhook_configs: [{url: 'http://h/'}]}]\n", "t");
  ASSERT_TRUE(cfg.has_value());
  base::SystemClock clock;
  std::atomic<int> sent{0};
  Dispatcher d(*cfg, clock, [&](const Integration&, const Notification&) {
    ++sent;
    return true;
  });
  std::thread t([&] { d.run(); });
  Alert a;
  a.labels = {{"alertname", "X"}};
  ASSERT_TRUE(d.put({a}).is_ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (sent.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  d.stop();
  t.join();
  EXPECT_EQ(sent.load(), 1);
}

}  // namespace
}  // namespace llmon::notify
