// Differential test: the same route config and the same alert sequence go to
// the real Alertmanager 0.25 (POST /api/v2/alerts, webhook receivers pointing
// at an in-test HTTP sink) and to our dispatcher driven by a fake clock on the
// same schedule. Which groups get notified, in which order, with which alerts
// (labels and firing/resolved) must be the same; times are compared to within
// 1.5 s only (Alertmanager runs on the wall clock of a loaded machine).
// Scenario (seconds): group_wait 2, group_interval 4, repeat_interval 9;
// t=0 four alerts (one inhibited), t=3 one more, t=7 two resolve; flushes at
// 2, 6, 10, 14 exercise group_wait, group_interval, send_resolved true/false,
// inhibition ending, resolved removal and repeat_interval.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "notify/route_am_harness.h"
#include "notify/routing/dispatcher.h"

namespace llmon::notify {
namespace {

using nlohmann::json;

std::string config_yaml(const std::string& url) {
  return R"(route:
  receiver: hook
  group_by: [alertname]
  group_wait: 2s
  group_interval: 4s
  repeat_interval: 9s
  routes:
    - matchers: ['severity="critical"']
      receiver: crit
      group_by: [alertname, instance]
      continue: true
    - matchers: ['team="db"']
      receiver: db
receivers:
  - name: hook
    webhook_configs: [{url: ')" +
         url + R"(', send_resolved: true}]
  - name: crit
    webhook_configs: [{url: ')" +
         url + R"(', send_resolved: false}]
  - name: db
    webhook_configs: [{url: ')" +
         url + R"('}]
inhibit_rules:
  - source_matchers: [severity="critical"]
    target_matchers: [severity="warning"]
    equal: [instance]
)";
}

struct Step {
  double at_s;
  std::vector<LabelPairs> firing;
  std::vector<LabelPairs> resolved;
};

const LabelPairs kA = {{"alertname", "Disk"}, {"instance", "a"}, {"severity", "critical"}};
const LabelPairs kB = {{"alertname", "Disk"}, {"instance", "b"}, {"severity", "warning"}};
const LabelPairs kC = {{"alertname", "Load"}, {"instance", "a"}, {"team", "db"}};
const LabelPairs kD = {{"alertname", "Disk"}, {"instance", "c"}, {"severity", "warning"}};
const LabelPairs kE = {{"alertname", "Disk"}, {"instance", "a"}, {"severity", "warning"}};

std::vector<Step> scenario() {
  return {
      {0.0, {kA, kB, kC, kE}, {}},
      {3.0, {kD}, {}},
      {7.0, {}, {kA, kB}},
  };
}
constexpr double kEndS = 15.5;

struct Seen {
  std::string receiver;
  std::string group_key;
  std::vector<std::string> alerts;  // "{labels}:status" in notification order
  double at_s = 0;
};

std::string describe(const std::vector<Seen>& v) {
  std::string out;
  for (const auto& s : v) {
    out += "  t=" + std::to_string(s.at_s) + " " + s.receiver + " " + s.group_key + " [";
    for (const auto& a : s.alerts) out += a + " ";
    out += "]\n";
  }
  return out;
}

std::vector<Seen> run_ours(const NotifyConfig& cfg) {
  constexpr int64_t kT0 = 1'700'000'000'000;
  base::ManualClock clock(kT0);
  std::vector<Seen> seen;
  Dispatcher d(cfg, clock, [&](const Integration&, const Notification& n) {
    Seen s{n.receiver, n.group_key, {}, (n.created_ms - kT0) / 1000.0};
    for (const auto& a : n.alerts)
      s.alerts.push_back(label_set_string(a.labels) + ":" + (a.resolved_at(n.created_ms) ? "resolved" : "firing"));
    seen.push_back(std::move(s));
    return true;
  });
  auto advance = [&](int64_t t) {
    for (int64_t next = d.next_deadline_ms(); next <= t; next = d.next_deadline_ms()) {
      clock.set_ms(next);
      d.tick(next);
    }
    clock.set_ms(t);
  };
  for (const auto& step : scenario()) {
    const int64_t t = kT0 + static_cast<int64_t>(step.at_s * 1000);
    advance(t);
    std::vector<Alert> batch;
    for (const auto& l : step.firing) batch.push_back(Alert{l, {{"summary", "x"}}, 0, 0, ""});
    for (const auto& l : step.resolved) batch.push_back(Alert{l, {{"summary", "x"}}, 0, t, ""});
    EXPECT_TRUE(d.put(batch).is_ok());
  }
  advance(kT0 + static_cast<int64_t>(kEndS * 1000));
  return seen;
}

std::string rfc3339_now() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

TEST(DispatchVsAlertmanager, SameNotificationsForSameAlertSequence) {
  if (amtest::Alertmanager::binary().empty())
    GTEST_SKIP() << "prometheus-alertmanager not installed (Debian package prometheus-alertmanager)";
  amtest::TempDir dir;
  amtest::WebhookSink sink;
  ASSERT_TRUE(sink.ok());
  const std::string yaml = config_yaml(sink.url());
  auto cfg = parse_notify_config(yaml, "am.yml");
  ASSERT_TRUE(cfg.has_value()) << cfg.error();
  const std::vector<Seen> ours = run_ours(*cfg);

  amtest::Alertmanager am;
  std::string err;
  ASSERT_TRUE(am.start(dir, yaml, &err)) << err;
  const double t0 = amtest::now_s();
  for (const auto& step : scenario()) {
    while (amtest::now_s() < t0 + step.at_s) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    json arr = json::array();
    for (const auto& l : step.firing) {
      json labels = json::object();
      for (const auto& [k, v] : l) labels[k] = v;
      arr.push_back({{"labels", labels}, {"annotations", {{"summary", "x"}}}});
    }
    for (const auto& l : step.resolved) {
      json labels = json::object();
      for (const auto& [k, v] : l) labels[k] = v;
      arr.push_back({{"labels", labels}, {"annotations", {{"summary", "x"}}}, {"endsAt", rfc3339_now()}});
    }
    std::string body;
    ASSERT_EQ(am.post_alerts(arr.dump(), &body), 200) << body;
  }
  while (amtest::now_s() < t0 + kEndS) std::this_thread::sleep_for(std::chrono::milliseconds(20));

  std::vector<Seen> theirs;
  for (const auto& p : sink.posted()) {
    json j = json::parse(p.body);
    Seen s{j["receiver"], j["groupKey"], {}, p.at_s - t0};
    for (const auto& a : j["alerts"]) {
      LabelPairs labels;
      for (auto it = a["labels"].begin(); it != a["labels"].end(); ++it)
        labels.emplace_back(it.key(), it.value().get<std::string>());
      s.alerts.push_back(label_set_string(labels) + ":" + a["status"].get<std::string>());
    }
    theirs.push_back(std::move(s));
  }
  SCOPED_TRACE("llmon:\n" + describe(ours) + "alertmanager:\n" + describe(theirs));

  // Per (receiver, group): the same notifications in the same order.
  std::map<std::pair<std::string, std::string>, std::vector<const Seen*>> by_group_ours, by_group_theirs;
  for (const auto& s : ours) by_group_ours[{s.receiver, s.group_key}].push_back(&s);
  for (const auto& s : theirs) by_group_theirs[{s.receiver, s.group_key}].push_back(&s);
  ASSERT_EQ(ours.size(), theirs.size());
  ASSERT_EQ(by_group_ours.size(), by_group_theirs.size());
  for (const auto& [key, list] : by_group_theirs) {
    auto it = by_group_ours.find(key);
    ASSERT_NE(it, by_group_ours.end()) << key.first << " " << key.second;
    ASSERT_EQ(it->second.size(), list.size()) << key.first << " " << key.second;
    for (size_t i = 0; i < list.size(); ++i) {
      EXPECT_EQ(it->second[i]->alerts, list[i]->alerts) << key.first << " " << key.second << " #" << i;
      EXPECT_NEAR(it->second[i]->at_s, list[i]->at_s, 1.5) << key.first << " " << key.second << " #" << i;
    }
  }
  // The scenario did exercise what it is meant to.
  EXPECT_EQ(ours.size(), 6u);
}

}  // namespace
}  // namespace llmon::notify
