// TCP connect: a listener answers, a closed port is reported per address,
// and the deadline covers the name lookup too.
#include "net/tcp_connect.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "support/http_client.h"

namespace llmon::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A listening socket on 127.0.0.1 (kernel-chosen port).
struct Listener {
  base::UniqueFd fd{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  uint16_t port = 0;
  Listener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd.get(), 4), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
};

TEST(TcpConnect, ConnectsNonBlockingAndCloseOnExec) {
  Listener l;
  auto fd = connect_tcp("127.0.0.1", l.port, deadline_after_ms(2000));
  ASSERT_TRUE(fd);
  EXPECT_TRUE(fd->valid());
  EXPECT_NE(::fcntl(fd->get(), F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC, 0);
}

TEST(TcpConnect, RefusedPortIsOneFailedAttempt) {
  const int port = llmon::testing::free_tcp_port();
  auto fd = connect_tcp("127.0.0.1", static_cast<uint16_t>(port), deadline_after_ms(2000));
  ASSERT_FALSE(fd);
  EXPECT_FALSE(fd.error().resolve.has_value());
  ASSERT_EQ(fd.error().attempts.size(), 1u);
  EXPECT_EQ(fd.error().attempts[0].failure, ConnectAttempt::Failure::kConnect);
  EXPECT_EQ(fd.error().attempts[0].error, ECONNREFUSED);
  EXPECT_EQ(fd.error().attempts[0].address, "127.0.0.1:" + std::to_string(port));
}

TEST(TcpConnect, TheDeadlineCoversTheLookup) {
  ConnectOptions opts;
  opts.lookup = [](const char*, const char*, const addrinfo*, addrinfo**) {
    std::this_thread::sleep_for(milliseconds(1500));
    return EAI_AGAIN;
  };
  const auto start = steady_clock::now();
  auto fd = connect_tcp("hung-dns.example", 80, start + milliseconds(150), opts);
  ASSERT_FALSE(fd);
  ASSERT_TRUE(fd.error().resolve.has_value());
  EXPECT_TRUE(fd.error().resolve->timed_out);
  EXPECT_LT(steady_clock::now() - start, milliseconds(1000));
}

TEST(TcpConnect, UnknownNameIsAResolveError) {
  ConnectOptions opts;
  opts.lookup = [](const char*, const char*, const addrinfo*, addrinfo**) { return EAI_NONAME; };
  auto fd = connect_tcp("no-such-host.invalid", 80, deadline_after_ms(2000), opts);
  ASSERT_FALSE(fd);
  ASSERT_TRUE(fd.error().resolve.has_value());
  EXPECT_EQ(fd.error().resolve->code, EAI_NONAME);
  EXPECT_TRUE(fd.error().attempts.empty());
}

}  // namespace
}  // namespace llmon::net
