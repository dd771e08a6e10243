// A notification survives an agent restart: jobs queued while the receiver
// is down are delivered, each exactly once, by the next process that opens
// the same queue directory once the receiver is up.
#include <gtest/gtest.h>

#include "notify/delivery/delivery_queue.h"
#include "notify/delivery/notification_codec.h"
#include "notify/delivery_receiver.h"
#include "notify/senders/webhook.h"

namespace llmon::notify {
namespace {

using testing::eventually;
using testing::Receiver;
using testing::ScopedTempDir;

Notification numbered(int i) {
  Notification n;
  n.receiver = "ops";
  n.group_key = "{}:{alertname=\"Job" + std::to_string(i) + "\"}";
  n.group_labels = {{"alertname", "Job" + std::to_string(i)}};
  n.created_ms = 1714564800000 + i;
  Alert a;
  a.labels = {{"alertname", "Job" + std::to_string(i)}, {"gpu", std::to_string(i)}};
  a.starts_at_ms = 1714564800000;
  n.alerts = {a};
  return n;
}

std::shared_ptr<DeliveryTarget> webhook_target(const std::string& url) {
  WebhookConfig cfg;
  cfg.url = url;
  cfg.http.timeout_ms = 2000;
  cfg.http.connect_timeout_ms = 1000;
  auto s = WebhookSender::create(cfg);
  EXPECT_TRUE(s) << s.error();
  return sender_target(std::shared_ptr<Sender>(std::move(*s)));
}

TEST(DeliveryRestart, EveryJobDeliveredExactlyOnceAfterRestart) {
  ScopedTempDir dir;
  base::SystemClock clock;
  DeliveryQueueOptions opts;
  opts.dir = dir.path();
  opts.fsync = FsyncPolicy::kAlways;  // the production policy
  constexpr int kJobs = 6;

  // 1. Receiver down: nothing listens on the port.
  int down_port;
  {
    Receiver gone;
    down_port = gone.port();
  }
  {
    auto q = DeliveryQueue::open(opts, clock, [] { return 0.5; });
    ASSERT_TRUE(q) << q.error();
    ASSERT_TRUE(
        (*q)->add_target("ops/webhook/0", webhook_target("http://127.0.0.1:" + std::to_string(down_port) + "/")));
    for (int i = 0; i < kJobs; ++i)
      ASSERT_TRUE((*q)->enqueue("ops/webhook/0", "webhook", encode_notification(numbered(i))));
    ASSERT_TRUE(eventually([&] { return (*q)->metrics().total.retried_total >= 1; }));
    EXPECT_EQ((*q)->size(), static_cast<size_t>(kJobs));
    const auto failures = (*q)->recent_failures();
    ASSERT_FALSE(failures.empty());
    EXPECT_NE(failures[0].error.find("Connection refused"), std::string::npos) << failures[0].error;
  }  // the agent stops

  // 2. Receiver up; a new process opens the same directory.
  Receiver up;
  {
    auto q = DeliveryQueue::open(opts, clock, [] { return 0.5; });
    ASSERT_TRUE(q) << q.error();
    EXPECT_EQ((*q)->recovery().jobs_recovered, static_cast<size_t>(kJobs));
    EXPECT_TRUE((*q)->recovery().problems.empty());
    ASSERT_TRUE((*q)->add_target("ops/webhook/0", webhook_target(up.url("/hook"))));
    ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
    EXPECT_EQ((*q)->metrics().total.delivered_total, static_cast<uint64_t>(kJobs));
  }
  const auto reqs = up.requests();
  ASSERT_EQ(reqs.size(), static_cast<size_t>(kJobs));
  for (int i = 0; i < kJobs; ++i) EXPECT_EQ(reqs[i].body, render_webhook_payload(numbered(i))) << i;

  // 3. A third start finds nothing left: the acks were durable.
  auto q = DeliveryQueue::open(opts, clock, [] { return 0.5; });
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ((*q)->recovery().jobs_recovered, 0u);
  ASSERT_TRUE((*q)->add_target("ops/webhook/0", webhook_target(up.url("/hook"))));
  EXPECT_EQ((*q)->size(), 0u);
  EXPECT_EQ(up.count(), static_cast<size_t>(kJobs));
}

TEST(DeliveryRestart, CorruptNotificationPayloadFailsPermanently) {
  ScopedTempDir dir;
  base::SystemClock clock;
  DeliveryQueueOptions opts;
  opts.dir = dir.path();
  opts.fsync = FsyncPolicy::kNever;
  Receiver r;
  auto q = DeliveryQueue::open(opts, clock, nullptr);
  ASSERT_TRUE(q) << q.error();
  ASSERT_TRUE((*q)->add_target("w", webhook_target(r.url("/"))));
  ASSERT_TRUE((*q)->enqueue("w", "webhook", "not a notification"));
  ASSERT_TRUE(eventually([&] { return (*q)->size() == 0; }));
  EXPECT_EQ((*q)->metrics().total.failed_total, 1u);
  EXPECT_EQ(r.count(), 0u);
  const auto f = (*q)->recent_failures();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].permanent);
  EXPECT_NE(f[0].error.find("notification payload"), std::string::npos) << f[0].error;
}

}  // namespace
}  // namespace llmon::notify
