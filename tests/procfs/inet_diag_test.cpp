#include "procfs/inet_diag.h"

#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>

#include <cstring>
#include <string>

namespace llmon::procfs {
namespace {

void append_record(std::string& dgram, uint8_t state, uint32_t rq, uint32_t wq) {
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_LENGTH(sizeof(inet_diag_msg));
  h.nlmsg_type = 20;  // SOCK_DIAG_BY_FAMILY
  inet_diag_msg m{};
  m.idiag_family = 2;
  m.idiag_state = state;
  m.idiag_rqueue = rq;
  m.idiag_wqueue = wq;
  std::string rec(NLMSG_ALIGN(h.nlmsg_len), '\0');
  std::memcpy(rec.data(), &h, sizeof h);
  std::memcpy(rec.data() + NLMSG_HDRLEN, &m, sizeof m);
  dgram += rec;
}

void append_control(std::string& dgram, uint16_t type, int error = 0) {
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_LENGTH(sizeof(int));
  h.nlmsg_type = type;
  std::string rec(NLMSG_ALIGN(h.nlmsg_len), '\0');
  std::memcpy(rec.data(), &h, sizeof h);
  std::memcpy(rec.data() + NLMSG_HDRLEN, &error, sizeof error);
  dgram += rec;
}

TEST(InetDiagParser, CountsStatesAndSumsQueues) {
  std::string d;
  append_record(d, 1, 10, 20);    // established
  append_record(d, 10, 0, 4096);  // listen: accept queue 0 of 4096
  append_record(d, 6, 0, 0);      // time_wait
  append_record(d, 1, 0, 5);
  TcpStates st;
  bool done = false;
  Status s = parse_inet_diag_datagram(d, st, done);
  ASSERT_TRUE(s) << s.message();
  EXPECT_FALSE(done);
  EXPECT_EQ(st.by_state[1], 2);
  EXPECT_EQ(st.by_state[10], 1);
  EXPECT_EQ(st.by_state[6], 1);
  EXPECT_EQ(st.rx_queued_bytes, 10);
  EXPECT_EQ(st.tx_queued_bytes, 4121);
  EXPECT_EQ(st.records, 4u);
  std::string end;
  append_control(end, NLMSG_DONE);
  ASSERT_TRUE(parse_inet_diag_datagram(end, st, done));
  EXPECT_TRUE(done);
  EXPECT_EQ(tcp_state_name(10), "listen");
  EXPECT_EQ(tcp_state_name(4), "fin_wait1");
  EXPECT_EQ(tcp_state_name(99), "unknown");
}

TEST(InetDiagParser, KernelErrorsAndTruncationFail) {
  std::string d;
  append_control(d, NLMSG_ERROR, -EPERM);
  TcpStates st;
  bool done = false;
  Status s = parse_inet_diag_datagram(d, st, done);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find(std::strerror(EPERM)), std::string::npos) << s.message();
  std::string t;
  append_record(t, 1, 0, 0);
  t.resize(t.size() - 8);
  EXPECT_FALSE(parse_inet_diag_datagram(t, st, done));
}

}  // namespace
}  // namespace llmon::procfs
