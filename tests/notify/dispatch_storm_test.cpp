// Alert storms: 10 000 alerts (resent every minute as Prometheus does)
// collapse into one notification per group and integration; a storm that
// would create too many groups is bounded and counted.
#include <gtest/gtest.h>

#include <map>

#include "notify/routing/dispatcher.h"

namespace llmon::notify {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;
constexpr int64_t kM = 60'000;

TEST(DispatchStorm, TenThousandAlertsCollapseIntoFewNotifications) {
  auto cfg = parse_notify_config(R"(route:
  receiver: ops
  group_by: [alertname, cluster]
  group_wait: 30s
  group_interval: 5m
  repeat_interval: 4h
  routes:
    - matchers: [severity="critical"]
      receiver: pager
      continue: true
receivers:
  - name: ops
    webhook_configs: [{url: 'http://127.0.0.1:9/ops'}]
  - name: pager
    webhook_configs: [{url: 'http://127.0.0.1:9/pager', send_resolved: false}]
)",
                                 "storm.yml");
  ASSERT_TRUE(cfg.has_value()) << cfg.error();
  base::ManualClock clock(kT0);
  std::vector<Notification> sent;
  Dispatcher d(*cfg, clock, [&](const Integration&, const Notification& n) {
    sent.push_back(n);
    return true;
  });

  // 10 000 alerts: 4 alert names x 2 clusters x 1250 GPUs; XidErrors are critical.
  const char* names[] = {"GpuXidErrors", "GpuTempHigh", "GpuEccErrors", "NodeDown"};
  std::vector<Alert> alerts;
  for (int n = 0; n < 4; ++n)
    for (int c = 0; c < 2; ++c)
      for (int g = 0; g < 1250; ++g) {
        Alert a;
        a.labels = {{"alertname", names[n]},
                    {"cluster", c == 0 ? "east" : "west"},
                    {"gpu", std::to_string(g % 8)},
                    {"instance", "node" + std::to_string(g / 8) + ":9100"},
                    {"severity", n == 0 ? "critical" : "warning"}};
        std::sort(a.labels.begin(), a.labels.end());
        a.annotations = {{"summary", "storm"}};
        a.starts_at_ms = kT0;
        alerts.push_back(std::move(a));
      }
  ASSERT_EQ(alerts.size(), 10'000u);

  // Resent every minute for 10 minutes (end = now + 4m, as Prometheus sets it).
  for (int minute = 0; minute <= 10; ++minute) {
    const int64_t now = kT0 + minute * kM;
    for (int64_t t = d.next_deadline_ms(); t <= now; t = d.next_deadline_ms()) {
      clock.set_ms(t);
      d.tick(t);
    }
    clock.set_ms(now);
    for (auto& a : alerts) a.ends_at_ms = now + 4 * kM;
    ASSERT_TRUE(d.put(alerts).is_ok());
  }
  // Critical alerts match the pager route (continue: true, but no later
  // sibling matches), so only they skip the root: 6 groups for "ops"
  // (3 names x 2 clusters) + 2 for "pager", notified once each.
  ASSERT_EQ(sent.size(), 8u);
  std::map<std::string, size_t> sizes;
  for (const auto& n : sent) sizes[n.receiver + " " + n.group_key] = n.alerts.size();
  EXPECT_EQ(sizes.size(), 8u);
  EXPECT_EQ(sizes[R"(ops {}:{alertname="NodeDown", cluster="east"})"], 1250u);
  EXPECT_EQ(sizes[R"(pager {}/{severity="critical"}:{alertname="GpuXidErrors", cluster="west"})"], 1250u);
  for (const auto& n : sent) EXPECT_EQ(n.created_ms, kT0 + 30'000);
  auto st = d.stats();
  EXPECT_EQ(st.alerts, 10'000u);
  EXPECT_EQ(st.groups, 8u);
  EXPECT_EQ(st.alerts_received, 110'000u);
  EXPECT_EQ(st.notifications, 8u);

  // The storm ends: alerts stop being resent and resolve; "ops" (send_resolved)
  // gets one resolved notification per group, "pager" none.
  sent.clear();
  const int64_t end = kT0 + 40 * kM;
  for (int64_t t = d.next_deadline_ms(); t <= end; t = d.next_deadline_ms()) {
    clock.set_ms(t);
    d.tick(t);
  }
  ASSERT_EQ(sent.size(), 6u);
  for (const auto& n : sent) {
    EXPECT_EQ(n.receiver, "ops");
    EXPECT_EQ(n.status(), "resolved");
    EXPECT_EQ(n.alerts.size(), 1250u);
  }
  EXPECT_EQ(d.stats().groups, 0u);
}

TEST(DispatchStorm, GroupExplosionIsBounded) {
  auto cfg = parse_notify_config(
      "route: {receiver: r, group_by: ['...']}\nreceivers: [{name: r, webhook_configs: [{url: 'http://h/'}]}]\n",
      "t.yml");
  ASSERT_TRUE(cfg.has_value());
  base::ManualClock clock(kT0);
  size_t sent = 0;
  DispatcherOptions o;
  o.limits.max_groups = 1000;
  Dispatcher d(
      *cfg, clock,
      [&](const Integration&, const Notification&) {
        ++sent;
        return true;
      },
      o);
  std::vector<Alert> alerts(10'000);
  for (size_t i = 0; i < alerts.size(); ++i) alerts[i].labels = {{"alertname", "A"}, {"id", std::to_string(i)}};
  ASSERT_TRUE(d.put(alerts).is_ok());
  auto st = d.stats();
  EXPECT_EQ(st.groups, 1000u);
  EXPECT_EQ(st.groups_limit_reached, 9000u);
  clock.set_ms(kT0 + 30'000);
  d.tick(kT0 + 30'000);
  EXPECT_EQ(sent, 1000u);
}

}  // namespace
}  // namespace llmon::notify
