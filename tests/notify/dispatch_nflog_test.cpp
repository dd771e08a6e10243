// The notification log on disk (nflog_file.h): a restarted dispatcher does
// not notify again what it already notified, notifies what changed, and a
// corrupt log is set aside instead of stopping start-up.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "notify/routing/dispatcher.h"
#include "notify/routing/nflog_file.h"

namespace llmon::notify {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;
constexpr int64_t kS = 1000;

constexpr const char* kConfig = R"(route:
  receiver: team
  group_by: [alertname]
  group_wait: 30s
  group_interval: 5m
  repeat_interval: 4h
receivers:
  - name: team
    webhook_configs: [{url: 'http://127.0.0.1:9/hook'}]
)";

class NflogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("nflog-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto c = parse_notify_config(kConfig, "t.yml");
    ASSERT_TRUE(c.has_value()) << c.error();
    cfg_ = *c;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A dispatcher as the agent builds one after a (re)start.
  std::unique_ptr<Dispatcher> start(bool persistent) {
    DispatcherOptions o;
    if (persistent) o.log_file = (dir_ / "nflog.json").string();
    auto d = std::make_unique<Dispatcher>(cfg_, clock_, [this](const Integration&, const Notification& n) {
      sent_.push_back(n);
      return true;
    }, o);
    EXPECT_TRUE(d->load_log()) << "load_log";
    return d;
  }
  static Alert firing(const std::string& name, const std::string& gpu) {
    Alert a;
    a.labels = {{"alertname", name}, {"gpu", gpu}};
    a.starts_at_ms = kT0 - 60 * kS;
    return a;
  }
  // Puts the alerts and lets group_wait pass.
  void run(Dispatcher& d, const std::vector<Alert>& alerts) {
    ASSERT_TRUE(d.put(alerts));
    clock_.advance_ms(31 * kS);
    d.tick(clock_.now_ms());
  }

  std::filesystem::path dir_;
  NotifyConfig cfg_;
  base::ManualClock clock_{kT0};
  std::vector<Notification> sent_;
};

TEST_F(NflogTest, RestartDoesNotRepeatANotification) {
  {
    auto d = start(true);
    run(*d, {firing("GpuHot", "0")});
    ASSERT_EQ(sent_.size(), 1u);
  }
  clock_.advance_ms(60 * kS);  // the agent restarts; the rules send the same alert again
  auto d = start(true);
  run(*d, {firing("GpuHot", "0")});
  EXPECT_EQ(sent_.size(), 1u) << "notified again after a restart";
  // Something new in the group is notified (after group_interval).
  ASSERT_TRUE(d->put({firing("GpuHot", "0"), firing("GpuHot", "1")}));
  clock_.advance_ms(5 * 60 * kS);
  d->tick(clock_.now_ms());
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_.back().alerts.size(), 2u);
}

TEST_F(NflogTest, WithoutTheFileARestartNotifiesAgain) {
  {
    auto d = start(false);
    run(*d, {firing("GpuHot", "0")});
  }
  auto d = start(false);
  run(*d, {firing("GpuHot", "0")});
  EXPECT_EQ(sent_.size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nflog.json"));
}

TEST_F(NflogTest, CorruptFileIsSetAsideAndTheLogStartsEmpty) {
  std::ofstream(dir_ / "nflog.json") << "{\"version\":1,\"entries\":[{\"key\":3}]}";
  DispatcherOptions o;
  o.log_file = (dir_ / "nflog.json").string();
  Dispatcher d(cfg_, clock_, [this](const Integration&, const Notification& n) {
    sent_.push_back(n);
    return true;
  }, o);
  Status st = d.load_log();
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("entry 1"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(".corrupt-"), std::string::npos) << st.message();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nflog.json"));
  run(d, {firing("GpuHot", "0")});
  EXPECT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "nflog.json"));  // written again after the flush
}

TEST(NflogCodec, RoundTripAndErrors) {
  Nflog log;
  log["{}:{alertname=\"x\"}\x1fteam\x1fwebhook[0]"] = {{1, 18446744073709551615ull}, {7}, kT0};
  log["other"] = {{}, {}, 5};
  auto back = decode_nflog(encode_nflog(log));
  ASSERT_TRUE(back.has_value()) << back.error();
  ASSERT_EQ(back->size(), 2u);
  const auto& e = back->at("{}:{alertname=\"x\"}\x1fteam\x1fwebhook[0]");
  EXPECT_EQ(e.firing, (std::vector<uint64_t>{1, 18446744073709551615ull}));
  EXPECT_EQ(e.resolved, (std::vector<uint64_t>{7}));
  EXPECT_EQ(e.timestamp_ms, kT0);
  for (const char* bad : {"", "\x01\xff garbage", "[]", "{\"version\":2,\"entries\":[]}", "{\"version\":1}",
                          "{\"version\":1,\"entries\":[{\"key\":\"k\",\"ts\":1,\"firing\":[\"x\"],\"resolved\":[]}]}"})
    EXPECT_FALSE(decode_nflog(bad).has_value()) << bad;
}

}  // namespace
}  // namespace llmon::notify
