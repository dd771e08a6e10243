// Name resolution under a deadline: IP literals without a lookup, names
// through the (here injected) getaddrinfo, and a lookup that hangs cut off
// at the deadline while the caller moves on.
#include "net/resolver.h"

#include <gtest/gtest.h>
#include <netdb.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace llmon::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(Resolver, IpLiteralsNeedNoLookup) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  ResolveOptions opts;
  opts.lookup = [calls](const char*, const char*, const addrinfo*, addrinfo**) {
    ++*calls;
    return EAI_FAIL;
  };
  auto v4 = resolve("127.0.0.1", 9093, deadline_after_ms(1000), opts);
  ASSERT_TRUE(v4) << v4.error().message();
  ASSERT_EQ(v4->size(), 1u);
  EXPECT_EQ((*v4)[0].family, AF_INET);
  EXPECT_EQ((*v4)[0].text(), "127.0.0.1:9093");
  auto v6 = resolve("::1", 25, deadline_after_ms(1000), opts);
  ASSERT_TRUE(v6) << v6.error().message();
  EXPECT_EQ((*v6)[0].text(), "[::1]:25");
  EXPECT_EQ(calls->load(), 0);
}

TEST(Resolver, NamesGoThroughTheLookup) {
  ResolveOptions opts;
  opts.lookup = [](const char* host, const char* service, const addrinfo* hints, addrinfo** res) {
    EXPECT_STREQ(host, "alerts.example");
    EXPECT_STREQ(service, "8443");
    EXPECT_EQ(hints->ai_socktype, SOCK_STREAM);
    return ::getaddrinfo("127.0.0.1", service, hints, res);
  };
  auto a = resolve("alerts.example", 8443, deadline_after_ms(5000), opts);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ((*a)[0].text(), "127.0.0.1:8443");

  opts.lookup = [](const char*, const char*, const addrinfo*, addrinfo**) { return EAI_NONAME; };
  auto e = resolve("no-such-host.invalid", 80, deadline_after_ms(5000), opts);
  ASSERT_FALSE(e);
  EXPECT_FALSE(e.error().timed_out);
  EXPECT_EQ(e.error().code, EAI_NONAME);
  EXPECT_EQ(e.error().message(), ::gai_strerror(EAI_NONAME));
}

TEST(Resolver, AHungLookupIsAbandonedAtTheDeadline) {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  ResolveOptions opts;
  opts.lookup = [finished](const char*, const char*, const addrinfo*, addrinfo**) {
    std::this_thread::sleep_for(milliseconds(1500));  // a resolver that does not answer
    finished->store(true);
    return EAI_AGAIN;
  };
  const auto start = steady_clock::now();
  auto r = resolve("slow.example", 80, start + milliseconds(200), opts);
  const auto took = steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().timed_out);
  EXPECT_EQ(r.error().message(), "timed out");
  EXPECT_GE(took, milliseconds(190));
  EXPECT_LT(took, milliseconds(1000));
  EXPECT_FALSE(finished->load());
  // The abandoned lookup ends on its own thread, touching only what it shares.
  for (int i = 0; i < 100 && !finished->load(); ++i) std::this_thread::sleep_for(milliseconds(50));
  EXPECT_TRUE(finished->load());
}

}  // namespace
}  // namespace llmon::net
