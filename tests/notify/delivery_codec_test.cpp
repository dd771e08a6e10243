// The Notification payload a queued job carries: lossless, and strict about
// truncated or corrupt input.
#include <gtest/gtest.h>

#include "notify/delivery/notification_codec.h"

namespace llmon::notify {
namespace {

using namespace std::string_literals;

Notification sample() {
  Notification n;
  n.receiver = "team-a";
  n.group_key = "{}:{alertname=\"X\"}";
  n.group_labels = {{"alertname", "X"}};
  n.created_ms = -5;  // negative survives too
  n.external_url = "http://h:9090";
  Alert a;
  a.labels = {{"alertname", "X"}, {"bin", "\xff\x00z"s}};
  a.annotations = {{"summary", "s\n"}};
  a.starts_at_ms = 1714564800000;
  a.ends_at_ms = 0;
  a.generator_url = "http://h:9090/graph";
  n.alerts = {a, a};
  n.alerts[1].ends_at_ms = 1714564900000;
  return n;
}

void expect_equal(const Notification& x, const Notification& y) {
  EXPECT_EQ(x.receiver, y.receiver);
  EXPECT_EQ(x.group_key, y.group_key);
  EXPECT_EQ(x.group_labels, y.group_labels);
  EXPECT_EQ(x.created_ms, y.created_ms);
  EXPECT_EQ(x.external_url, y.external_url);
  ASSERT_EQ(x.alerts.size(), y.alerts.size());
  for (size_t i = 0; i < x.alerts.size(); ++i) {
    EXPECT_EQ(x.alerts[i].labels, y.alerts[i].labels);
    EXPECT_EQ(x.alerts[i].annotations, y.alerts[i].annotations);
    EXPECT_EQ(x.alerts[i].starts_at_ms, y.alerts[i].starts_at_ms);
    EXPECT_EQ(x.alerts[i].ends_at_ms, y.alerts[i].ends_at_ms);
    EXPECT_EQ(x.alerts[i].generator_url, y.alerts[i].generator_url);
  }
}

TEST(NotificationCodec, RoundTrip) {
  const Notification n = sample();
  auto back = decode_notification(encode_notification(n));
  ASSERT_TRUE(back) << back.error();
  expect_equal(*back, n);
  auto empty = decode_notification(encode_notification(Notification{}));
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_TRUE(empty->alerts.empty());
}

TEST(NotificationCodec, ExactBytesOfASmallOne) {
  Notification n;
  n.receiver = "r";
  n.created_ms = 258;
  EXPECT_EQ(encode_notification(n),
            "\x01"                              // version
            "\x01\x00\x00\x00r"                 // receiver
            "\x00\x00\x00\x00"                  // group_key
            "\x00\x00\x00\x00"                  // group_labels
            "\x02\x01\x00\x00\x00\x00\x00\x00"  // created_ms
            "\x00\x00\x00\x00"                  // external_url
            "\x00\x00\x00\x00"s);               // alerts
}

TEST(NotificationCodec, EveryTruncationIsAnError) {
  const std::string bytes = encode_notification(sample());
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto r = decode_notification(std::string_view(bytes).substr(0, len));
    ASSERT_FALSE(r) << "length " << len;
    EXPECT_NE(r.error().find("at byte"), std::string::npos) << r.error();
  }
}

TEST(NotificationCodec, TrailingBytesVersionAndHugeCounts) {
  auto r = decode_notification(encode_notification(sample()) + "x");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("1 unexpected bytes"), std::string::npos) << r.error();
  r = decode_notification("\x02"s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("version 2"), std::string::npos) << r.error();
  // A count of 2^32-1 alerts in a short input is rejected without allocating.
  std::string huge = encode_notification(Notification{});
  huge.replace(huge.size() - 4, 4, "\xff\xff\xff\xff"s);
  r = decode_notification(huge);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("alert count"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace llmon::notify
