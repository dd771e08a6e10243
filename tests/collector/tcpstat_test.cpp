#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "collector/builtin.h"
#include "collector/tcp_diag.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::value_of;

struct Sock {
  uint8_t state;
  uint32_t rq, wq;
};

std::string datagram(const std::vector<Sock>& socks, bool done) {
  std::string d;
  for (const Sock& s : socks) {
    nlmsghdr h{};
    h.nlmsg_len = NLMSG_LENGTH(sizeof(inet_diag_msg));
    h.nlmsg_type = 20;
    inet_diag_msg m{};
    m.idiag_state = s.state;
    m.idiag_rqueue = s.rq;
    m.idiag_wqueue = s.wq;
    std::string rec(NLMSG_ALIGN(h.nlmsg_len), '\0');
    std::memcpy(rec.data(), &h, sizeof h);
    std::memcpy(rec.data() + NLMSG_HDRLEN, &m, sizeof m);
    d += rec;
  }
  if (done) {
    nlmsghdr h{};
    h.nlmsg_len = NLMSG_LENGTH(sizeof(int));
    h.nlmsg_type = NLMSG_DONE;
    std::string rec(NLMSG_ALIGN(h.nlmsg_len), '\0');
    std::memcpy(rec.data(), &h, sizeof h);
    d += rec;
  }
  return d;
}

// Replays canned datagrams per address family; records which were asked for.
class FakeDiag final : public TcpDiag {
 public:
  FakeDiag(std::map<uint8_t, std::vector<std::string>> answers, std::vector<uint8_t>* asked)
      : answers_(std::move(answers)), asked_(asked) {}
  Status dump(uint8_t family, const DatagramFn& fn) override {
    asked_->push_back(family);
    if (fail_) return Status::error("netlink receive: Operation not permitted");
    bool done = false;
    for (const std::string& d : answers_[family]) {
      if (Status s = fn(d, done); !s) return s;
      if (done) break;
    }
    return Status::ok();
  }
  bool fail_ = false;

 private:
  std::map<uint8_t, std::vector<std::string>> answers_;
  std::vector<uint8_t>* asked_;
};

TEST(TcpstatCollector, StatesOfBothFamiliesWhenTcp6Exists) {
  testing::TempFixture fx({});
  fx.write("proc/net/tcp6", "  sl  local_address ...\n");
  std::vector<uint8_t> asked;
  auto diag = std::make_unique<FakeDiag>(
      std::map<uint8_t, std::vector<std::string>>{
          {AF_INET, {datagram({{1, 100, 20}, {10, 0, 4096}}, false), datagram({{6, 0, 0}, {1, 0, 0}}, true)}},
          {AF_INET6, {datagram({{10, 2, 4096}, {8, 1, 0}}, true)}}},
      &asked);
  auto c = make_tcpstat_with(fx.context(), std::move(diag));
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(asked, (std::vector<uint8_t>{AF_INET, AF_INET6}));
  testing::expect_family(snap, "node_tcp_connection_states", model::MetricType::kGauge, "Number of connection states.");
  EXPECT_EQ(value_of(snap, "node_tcp_connection_states", {{"state", "established"}}), 2);
  EXPECT_EQ(value_of(snap, "node_tcp_connection_states", {{"state", "listen"}}), 2);
  EXPECT_EQ(value_of(snap, "node_tcp_connection_states", {{"state", "time_wait"}}), 1);
  EXPECT_EQ(value_of(snap, "node_tcp_connection_states", {{"state", "close_wait"}}), 1);
  EXPECT_EQ(value_of(snap, "node_tcp_connection_states", {{"state", "rx_queued_bytes"}}), 103);
  EXPECT_EQ(value_of(snap, "node_tcp_connection_states", {{"state", "tx_queued_bytes"}}), 8212);
  EXPECT_TRUE(std::isnan(value_of(snap, "node_tcp_connection_states", {{"state", "syn_sent"}})));  // only seen states
  EXPECT_EQ(testing::series_count(snap, "node_tcp_connection_states"), 6u);
}

TEST(TcpstatCollector, NoTcp6FileMeansIpv4OnlyAndNoSocketsNoSeries) {
  testing::TempFixture fx({});
  std::vector<uint8_t> asked;
  auto c = make_tcpstat_with(
      fx.context(),
      std::make_unique<FakeDiag>(std::map<uint8_t, std::vector<std::string>>{{AF_INET, {datagram({}, true)}}}, &asked));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(asked, (std::vector<uint8_t>{AF_INET}));
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(TcpstatCollector, DumpFailureFailsTheCollector) {
  testing::TempFixture fx({});
  std::vector<uint8_t> asked;
  auto diag = std::make_unique<FakeDiag>(std::map<uint8_t, std::vector<std::string>>{}, &asked);
  diag->fail_ = true;
  auto c = make_tcpstat_with(fx.context(), std::move(diag));
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("couldn't get tcpstats"), std::string::npos) << s.message();
}

TEST(TcpstatCollector, LiveNetlinkDumpWorks) {
  auto c = make_tcpstat(testing::fixture_context());  // the real socket: this test's own namespace
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  if (!s && s.message().find("netlink socket") != std::string::npos) GTEST_SKIP() << s.message();
  ASSERT_TRUE(s) << s.message();
}

}  // namespace
}  // namespace llmon::collector
