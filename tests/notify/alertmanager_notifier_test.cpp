// The Alertmanager notifier against in-test receivers: batching, every
// Alertmanager with its path prefix, external labels, the in-memory queue
// bound, and the per-Alertmanager counters.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "notify/delivery_receiver.h"
#include "notify/senders/alertmanager.h"

namespace llmon::notify {
namespace {

using testing::eventually;
using testing::Receiver;
using testing::Reply;
using testing::ScopedTempDir;

std::vector<Alert> make_alerts(int n, int offset = 0) {
  std::vector<Alert> out;
  for (int i = 0; i < n; ++i) {
    Alert a;
    a.labels = {{"alertname", "GpuHot"}, {"gpu", std::to_string(offset + i)}};
    a.starts_at_ms = 1714564800000;
    a.ends_at_ms = 1714565040000;
    out.push_back(a);
  }
  return out;
}

struct Fixture {
  ScopedTempDir dir;
  base::SystemClock clock;
  std::unique_ptr<DeliveryQueue> queue;
  Fixture() {
    DeliveryQueueOptions o;
    o.dir = dir.path();
    o.fsync = FsyncPolicy::kNever;
    o.backoff.initial_ms = 10;  // quick retries against the in-test receivers
    auto q = DeliveryQueue::open(o, clock, [] { return 0.5; });
    EXPECT_TRUE(q) << q.error();
    queue = std::move(*q);
  }
};

TEST(AlertmanagerNotifier, BatchesToEveryAlertmanagerWithPrefix) {
  Fixture f;
  Receiver am1, am2;
  AlertmanagerOptions o;
  o.alertmanagers = {{am1.url("/"), {}}, {am2.url("/am2-prefix/"), {}}};
  o.external_labels = {{"cluster", "c1"}, {"gpu", "ignored"}};
  auto n = AlertmanagerNotifier::create(o, *f.queue);
  ASSERT_TRUE(n) << n.error();
  (*n)->send(make_alerts(600));
  (*n)->flush();
  ASSERT_TRUE(am1.wait_for(3));
  ASSERT_TRUE(am2.wait_for(3));
  ASSERT_TRUE(eventually([&] { return f.queue->size() == 0; }));
  for (Receiver* am : {&am1, &am2}) {
    const auto reqs = am->requests();
    ASSERT_EQ(reqs.size(), 3u);
    size_t sizes[3];
    int next_gpu = 0;
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(reqs[i].method, "POST");
      EXPECT_EQ(reqs[i].target, am == &am1 ? "/api/v2/alerts" : "/am2-prefix/api/v2/alerts");
      EXPECT_EQ(reqs[i].header("content-type"), "application/json");
      auto j = nlohmann::json::parse(reqs[i].body);
      ASSERT_TRUE(j.is_array());
      sizes[i] = j.size();
      for (const auto& alert : j) {
        EXPECT_EQ(alert["labels"]["cluster"], "c1");                    // external label added
        EXPECT_EQ(alert["labels"]["gpu"], std::to_string(next_gpu++));  // own label wins, order kept
        EXPECT_EQ(alert["startsAt"], "2024-05-01T12:00:00.000Z");
        EXPECT_EQ(alert["endsAt"], "2024-05-01T12:04:00.000Z");
      }
    }
    EXPECT_EQ(sizes[0], 256u);
    EXPECT_EQ(sizes[1], 256u);
    EXPECT_EQ(sizes[2], 88u);
  }
  const AlertmanagerMetrics m = (*n)->metrics();
  ASSERT_EQ(m.alertmanagers.size(), 2u);
  EXPECT_EQ(m.alertmanagers[0].url, am1.url("/api/v2/alerts"));
  EXPECT_EQ(m.alertmanagers[1].url, am2.url("/am2-prefix/api/v2/alerts"));
  for (const auto& am : m.alertmanagers) {
    EXPECT_EQ(am.sent_total, 600u);
    EXPECT_EQ(am.errors_total, 0u);
  }
  EXPECT_EQ(m.dropped_total, 0u);
  EXPECT_EQ(m.queue_capacity, kAlertmanagerQueueCapacity);
  EXPECT_EQ(m.queue_length, 0u);
}

TEST(AlertmanagerNotifier, ServerErrorsAreRetriedAndCounted) {
  Fixture f;
  Receiver am([](const testing::ReceivedRequest&, int i) {
    return i < 2 ? Reply{Reply::Action::kRespond, 500, "busy"} : Reply{};
  });
  AlertmanagerOptions o;
  o.alertmanagers = {{am.url(), {}}};
  auto n = AlertmanagerNotifier::create(o, *f.queue);
  ASSERT_TRUE(n) << n.error();
  (*n)->send(make_alerts(3));
  ASSERT_TRUE(am.wait_for(3));
  ASSERT_TRUE(eventually([&] { return f.queue->size() == 0; }));
  const auto reqs = am.requests();
  EXPECT_EQ(reqs[0].body, reqs[2].body);  // the same batch, resent
  const auto m = (*n)->metrics();
  EXPECT_EQ(m.alertmanagers[0].sent_total, 3u);
  EXPECT_EQ(m.alertmanagers[0].errors_total, 6u);  // two failed attempts of three alerts
  EXPECT_EQ(m.alertmanagers[0].dropped_total, 0u);
  const auto failures = f.queue->recent_failures();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_NE(failures[0].error.find("bad response status 500"), std::string::npos) << failures[0].error;
  EXPECT_EQ(failures[0].kind, "alertmanager");
}

TEST(AlertmanagerNotifier, BadRequestIsDroppedNotRetried) {
  Fixture f;
  Receiver am([](const testing::ReceivedRequest&, int) { return Reply{Reply::Action::kRespond, 400, "bad"}; });
  AlertmanagerOptions o;
  o.alertmanagers = {{am.url(), {}}};
  auto n = AlertmanagerNotifier::create(o, *f.queue);
  ASSERT_TRUE(n) << n.error();
  (*n)->send(make_alerts(2));
  ASSERT_TRUE(am.wait_for(1));
  ASSERT_TRUE(eventually([&] { return f.queue->size() == 0; }));
  const auto m = (*n)->metrics();
  EXPECT_EQ(am.count(), 1u);
  EXPECT_EQ(m.alertmanagers[0].dropped_total, 2u);
  EXPECT_EQ(m.alertmanagers[0].errors_total, 2u);
  EXPECT_EQ(m.dropped_total, 2u);
}

TEST(AlertmanagerNotifier, InMemoryQueueKeepsTheNewest) {
  Fixture f;
  Receiver am;
  AlertmanagerOptions o;
  o.alertmanagers = {{am.url(), {}}};
  o.queue_capacity = 5;
  auto n = AlertmanagerNotifier::create(o, *f.queue);
  ASSERT_TRUE(n) << n.error();
  (*n)->send(make_alerts(8));  // larger than the queue: the first three go
  (*n)->flush();
  ASSERT_TRUE(am.wait_for(1));
  auto j = nlohmann::json::parse(am.requests()[0].body);
  ASSERT_EQ(j.size(), 5u);
  EXPECT_EQ(j[0]["labels"]["gpu"], "3");
  EXPECT_EQ(j[4]["labels"]["gpu"], "7");
  const auto m = (*n)->metrics();
  EXPECT_EQ(m.dropped_total, 3u);
  EXPECT_EQ(m.queue_capacity, 5u);
}

TEST(AlertmanagerNotifier, ConfigErrors) {
  Fixture f;
  AlertmanagerOptions o;
  o.alertmanagers = {{"am:9093", {}}};
  auto n = AlertmanagerNotifier::create(o, *f.queue);
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().find("scheme://"), std::string::npos) << n.error();
  o.alertmanagers = {{"http://am:9093", {}}, {"http://am:9093/", {}}};
  n = AlertmanagerNotifier::create(o, *f.queue);
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().find("configured twice"), std::string::npos) << n.error();
}

TEST(AlertmanagerNotifier, PendingAlertsReachTheQueueOnShutdown) {
  Fixture f;
  int port;
  {
    Receiver gone;
    port = gone.port();
  }
  AlertmanagerOptions o;
  o.alertmanagers = {{"http://127.0.0.1:" + std::to_string(port), {}}};
  {
    auto n = AlertmanagerNotifier::create(o, *f.queue);
    ASSERT_TRUE(n) << n.error();
    (*n)->send(make_alerts(300));
  }                                // destroyed right away: what was in memory goes to the persistent queue
  EXPECT_EQ(f.queue->size(), 2u);  // 256 + 44, waiting for the Alertmanager
}

}  // namespace
}  // namespace llmon::notify
