// The forwarders' queue (queue_forwarder.h) with scripted send functions,
// and the syslog and Loki senders (forward_senders.h) against receivers on
// loopback sockets in the test: framing, reconnects, and how statuses are
// treated. The real rsyslogd is tests/integration's.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "logwatch/forward_senders.h"
#include "logwatch/queue_forwarder.h"

namespace llmon::logwatch {
namespace {

Event ev(const std::string& rule, const std::string& line) {
  Event e;
  e.time_ms = 1'796'000'000'000;
  e.rule = rule;
  e.source = "/var/log/train.log";
  e.severity = Severity::kError;
  e.lines = {line};
  return e;
}

bool eventually(const std::function<bool()>& f) {
  for (int i = 0; i < 500; ++i) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return f();
}

QueueOptions fast() {
  QueueOptions o;
  o.batch_wait_ms = 1;
  o.retry_min_ms = 1;
  o.retry_max_ms = 5;
  o.stop_deadline_ms = 50;
  return o;
}

TEST(QueueForwarder, RetriesABatchUntilItIsSent) {
  base::SystemClock clock;
  std::atomic<int> calls{0};
  std::vector<std::string> got;
  std::mutex mu;
  QueueForwarder f(
      "t",
      [&](const std::vector<Event>& b) -> SendOutcome {
        if (++calls <= 2) return {SendResult::kRetry, "down"};
        std::lock_guard l(mu);
        for (const Event& e : b) got.push_back(e.lines[0]);
        return {};
      },
      clock, fast());
  f.enqueue({ev("a", "1"), ev("a", "2")});
  ASSERT_TRUE(eventually([&] { return f.stats().sent == 2; }));
  ForwarderStats s = f.stats();
  EXPECT_EQ(s.errors, 2u);
  EXPECT_EQ(s.dropped, 0u);
  EXPECT_EQ(s.last_error, "down");
  EXPECT_GT(s.last_success_ms, 0);
  f.stop();
  std::lock_guard l(mu);
  EXPECT_EQ(got, (std::vector<std::string>{"1", "2"}));
}

TEST(QueueForwarder, AFullQueueDropsAndCountsAndStopDropsTheRest) {
  base::SystemClock clock;
  QueueOptions o = fast();
  o.max_queue = 3;
  QueueForwarder f(
      "t",
      [](const std::vector<Event>&) {
        return SendOutcome{SendResult::kRetry, "down"};
      },
      clock, o);
  std::vector<Event> many(10, ev("a", "x"));
  f.enqueue(many);
  f.stop();
  ForwarderStats s = f.stats();
  EXPECT_EQ(s.sent, 0u);
  EXPECT_EQ(s.dropped, 10u);  // 7 at the full queue, 3 left at stop
  EXPECT_EQ(s.queue, 0u);
  f.enqueue({ev("a", "late")});  // after stop: dropped, no thread
  EXPECT_EQ(f.stats().dropped, 11u);
}

TEST(QueueForwarder, RejectedBatchesAreDroppedNotRetried) {
  base::SystemClock clock;
  std::atomic<int> calls{0};
  QueueForwarder f(
      "t",
      [&](const std::vector<Event>&) {
        ++calls;
        return SendOutcome{SendResult::kRejected, "400"};
      },
      clock, fast());
  f.enqueue({ev("a", "1")});
  ASSERT_TRUE(eventually([&] { return f.stats().dropped == 1; }));
  f.stop();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(f.stats().errors, 1u);
}

// A loopback listener; accept() and read in the test.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 8), 0);
    socklen_t n = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd_); }
  uint16_t port() const { return port_; }
  int accept_one() const { return ::accept(fd_, nullptr, nullptr); }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// Reads until `want` complete octet-counted frames are in.
std::vector<std::string> read_frames(int fd, size_t want) {
  std::string buf;
  std::vector<std::string> out;
  char tmp[4096];
  while (out.size() < want) {
    ssize_t n = ::read(fd, tmp, sizeof tmp);
    if (n <= 0) break;
    buf.append(tmp, static_cast<size_t>(n));
    for (;;) {
      size_t sp = buf.find(' ');
      if (sp == std::string::npos) break;
      size_t len = std::stoul(buf.substr(0, sp));
      if (buf.size() < sp + 1 + len) break;
      out.push_back(buf.substr(sp + 1, len));
      buf.erase(0, sp + 1 + len);
    }
  }
  return out;
}

TEST(SyslogSender, OctetCountedFramesAndAReconnectAfterThePeerCloses) {
  Listener l;
  auto target = parse_syslog_target("tcp://127.0.0.1:" + std::to_string(l.port()));
  ASSERT_TRUE(target) << target.error();
  SyslogEventOptions o;
  o.hostname = "node1";
  SendFn send = syslog_sender(*target, o, 2000);
  SendOutcome r = send({ev("cuda_oom", "CUDA out of memory"), ev("nccl_error", "NCCL error")});
  ASSERT_EQ(r.result, SendResult::kSent) << r.error;
  int c1 = l.accept_one();
  auto frames = read_frames(c1, 2);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_TRUE(frames[0].starts_with("<131>1 2026-")) << frames[0];  // local0.err
  EXPECT_NE(frames[0].find(" node1 llmon - cuda_oom [llmon@32473 "), std::string::npos) << frames[0];
  EXPECT_TRUE(frames[0].ends_with("CUDA out of memory")) << frames[0];
  ::close(c1);  // the receiver restarts
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  r = send({ev("cuda_oom", "again")});
  ASSERT_EQ(r.result, SendResult::kSent) << r.error;
  int c2 = l.accept_one();
  frames = read_frames(c2, 1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_TRUE(frames[0].ends_with("again"));
  ::close(c2);
}

TEST(SyslogSender, NoReceiverIsARetryAndBadTargetsAreErrors) {
  int port;
  {
    Listener l;
    port = l.port();
  }  // closed: nothing listens there now
  SendFn send = syslog_sender({"127.0.0.1", static_cast<uint16_t>(port)}, {}, 500);
  EXPECT_EQ(send({ev("a", "x")}).result, SendResult::kRetry);
  EXPECT_FALSE(parse_syslog_target("udp://h:514"));
  EXPECT_FALSE(parse_syslog_target("tcp://h"));
  EXPECT_FALSE(parse_syslog_target("tcp://h:70000"));
  auto v6 = parse_syslog_target("tcp://[::1]:6514");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 6514);
}

// Answers one HTTP request with `status` and returns what it read.
std::string answer_once(const Listener& l, int status) {
  int c = l.accept_one();
  std::string req;
  char tmp[8192];
  size_t need = std::string::npos;
  while (need == std::string::npos || req.size() < need) {
    ssize_t n = ::read(c, tmp, sizeof tmp);
    if (n <= 0) break;
    req.append(tmp, static_cast<size_t>(n));
    size_t end = req.find("\r\n\r\n");
    if (end != std::string::npos && need == std::string::npos) {
      size_t cl = req.find("Content-Length: ");
      if (cl == std::string::npos) cl = req.find("content-length: ");
      need = end + 4 + (cl == std::string::npos ? 0 : std::stoul(req.substr(cl + 16)));
    }
  }
  std::string res = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  (void)::write(c, res.data(), res.size());
  ::close(c);
  return req;
}

TEST(LokiSender, PostsPushRequestsAndTreatsStatusesAsLokiDoes) {
  Listener l;
  std::string url = "http://127.0.0.1:" + std::to_string(l.port()) + "/loki/api/v1/push";
  for (auto [format, type] :
       {std::pair{LokiFormat::kProtobuf, "application/x-protobuf"}, std::pair{LokiFormat::kJson, "application/json"}}) {
    auto send = loki_sender(url, {"node1", {}}, format, 2000);
    ASSERT_TRUE(send) << send.error();
    for (auto [status, want] : {std::pair{204, SendResult::kSent}, std::pair{429, SendResult::kRetry},
                                std::pair{500, SendResult::kRetry}, std::pair{400, SendResult::kRejected}}) {
      std::string req;
      std::thread srv([&] { req = answer_once(l, status); });
      SendOutcome r = (*send)({ev("cuda_oom", "CUDA out of memory")});
      srv.join();
      EXPECT_EQ(r.result, want) << status << " " << r.error;
      EXPECT_TRUE(req.starts_with("POST /loki/api/v1/push HTTP/1.1\r\n")) << req.substr(0, 80);
      EXPECT_NE(req.find(type), std::string::npos) << req.substr(0, 300);
      if (format == LokiFormat::kJson) {
        EXPECT_NE(req.find("\"rule\":\"cuda_oom\""), std::string::npos) << req;
      }
    }
  }
  EXPECT_FALSE(loki_sender("ftp://x/push", {}, LokiFormat::kJson));
  LokiFormat f;
  EXPECT_TRUE(parse_loki_format("json", f));
  EXPECT_FALSE(parse_loki_format("xml", f));
}

}  // namespace
}  // namespace llmon::logwatch
