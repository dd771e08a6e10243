// smtp_send() over real sockets against a scripted in-process server on
// 127.0.0.1 (a port picked at run time): replies split across writes,
// timeouts (silent and trickling servers), a server that closes mid-DATA,
// connection refused, garbage, and a STARTTLS response-injection attempt.
// TLS against a real server is in smtp_real_test.cpp.
#include "notify/email/smtp_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace llmon::notify {
namespace {

using Clock = std::chrono::steady_clock;

// One accepted connection, seen from the server side.
class Peer {
 public:
  explicit Peer(int fd) : fd_(fd) {}
  bool send(std::string_view s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // Reads up to and including `until`; "" on EOF or after timeout_ms.
  std::string read_until(std::string_view until, int timeout_ms = 5000) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      if (size_t p = buf_.find(until); p != std::string::npos) {
        std::string out = buf_.substr(0, p + until.size());
        buf_.erase(0, p + until.size());
        return out;
      }
      int left =
          static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
      if (left <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, left) <= 0) return "";
      char b[4096];
      ssize_t n = ::recv(fd_, b, sizeof b, 0);
      if (n <= 0) return "";
      buf_.append(b, static_cast<size_t>(n));
    }
  }
  std::string line() { return read_until("\r\n"); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  ~Peer() { close(); }

 private:
  int fd_;
  std::string buf_;
};

// Listens on 127.0.0.1:0, serves one connection with `script` on a thread.
class ScriptServer {
 public:
  explicit ScriptServer(std::function<void(Peer&)> script) {
    lfd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(lfd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(lfd_, 4), 0);
    socklen_t len = sizeof a;
    ::getsockname(lfd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, script = std::move(script)] {
      pollfd p{lfd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) return;
      int fd = ::accept(lfd_, nullptr, nullptr);
      if (fd < 0) return;
      Peer peer(fd);
      script(peer);
    });
  }
  ~ScriptServer() {
    wait();
    ::close(lfd_);
  }
  // Until the script has finished.
  void wait() {
    if (thread_.joinable()) thread_.join();
  }
  uint16_t port() const { return port_; }

 private:
  int lfd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

SmtpClientConfig cfg_for(uint16_t port) {
  SmtpClientConfig c;
  c.host = "127.0.0.1";
  c.port = port;
  c.require_tls = false;
  c.io_timeout_ms = 3000;
  c.connect_timeout_ms = 3000;
  return c;
}

const SmtpEnvelope kEnv{"alerts@example.org", {"ops@example.org", "gpu@example.org"}};

TEST(SmtpClient, FullExchangeWithSplitReplies) {
  std::mutex mu;
  std::string data, commands;
  ScriptServer srv([&](Peer& p) {
    p.send("220-mx.test ESMTP\r\n220 ");                         // a multi-line greeting split mid-line
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // make the split visible to the client
    p.send("ready\r\n");
    std::string ehlo = p.line();
    p.send("250-mx.test\r\n250-SIZE 100000\r\n250 8BITMIME\r\n");
    std::string mail = p.line();
    p.send("250 ok\r\n");
    std::string r1 = p.line();
    p.send("250 ok\r\n");
    std::string r2 = p.line();
    p.send("250 ok\r\n");
    std::string d = p.line();
    p.send("354 go\r\n");
    std::string body = p.read_until("\r\n.\r\n");
    p.send("250 2.0.0 queued\r\n");
    std::string quit = p.line();
    p.send("221 bye\r\n");
    std::lock_guard<std::mutex> lock(mu);
    commands = ehlo + mail + r1 + r2 + d + quit;
    data = body;
  });
  DeliveryResult r = smtp_send(cfg_for(srv.port()), kEnv, "Subject: t\n\n.leading dot\nend");
  EXPECT_EQ(r.outcome, DeliveryOutcome::kDelivered) << r.error;
  srv.wait();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(commands,
            "EHLO localhost\r\nMAIL FROM:<alerts@example.org>\r\nRCPT TO:<ops@example.org>\r\n"
            "RCPT TO:<gpu@example.org>\r\nDATA\r\nQUIT\r\n");
  EXPECT_EQ(data, "Subject: t\r\n\r\n..leading dot\r\nend\r\n.\r\n");
}

TEST(SmtpClient, SilentServerTimesOut) {
  std::atomic<bool> done{false};
  ScriptServer srv([&](Peer& p) {
    while (!done) {
      if (p.read_until("\n", 100).empty() && done) break;
    }
  });
  SmtpClientConfig c = cfg_for(srv.port());
  c.io_timeout_ms = 300;
  auto t0 = Clock::now();
  DeliveryResult r = smtp_send(c, kEnv, "x");
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  done = true;
  EXPECT_EQ(r.outcome, DeliveryOutcome::kRetry);
  EXPECT_NE(r.error.find("smtp 127.0.0.1:" + std::to_string(srv.port()) + ": greeting: timed out"), std::string::npos)
      << r.error;
  EXPECT_GE(s, 0.25);
  EXPECT_LT(s, 2.5);
}

TEST(SmtpClient, TricklingServerCannotExtendTheDeadline) {
  std::atomic<bool> done{false};
  ScriptServer srv([&](Peer& p) {
    p.send("220 hi\r\n");
    p.line();
    p.send("250-mx\r\n");
    while (!done && p.send("2")) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  SmtpClientConfig c = cfg_for(srv.port());
  c.io_timeout_ms = 400;
  auto t0 = Clock::now();
  DeliveryResult r = smtp_send(c, kEnv, "x");
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  done = true;
  EXPECT_EQ(r.outcome, DeliveryOutcome::kRetry);
  EXPECT_NE(r.error.find("EHLO localhost: "), std::string::npos) << r.error;
  EXPECT_LT(s, 2.0);
}

TEST(SmtpClient, ServerClosesMidData) {
  ScriptServer srv([&](Peer& p) {
    p.send("220 hi\r\n");
    p.line();
    p.send("250 mx\r\n");
    p.line();
    p.send("250 ok\r\n");
    p.line();
    p.send("250 ok\r\n");
    p.line();
    p.send("250 ok\r\n");
    p.line();
    p.send("354 go\r\n");
    p.read_until("Subject");
    p.close();
  });
  DeliveryResult r = smtp_send(cfg_for(srv.port()), kEnv, "Subject: t\r\n\r\nbody\r\n");
  EXPECT_EQ(r.outcome, DeliveryOutcome::kRetry);
  EXPECT_NE(r.error.find(": end of DATA: "), std::string::npos) << r.error;
}

TEST(SmtpClient, ConnectionRefused) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  uint16_t port = ntohs(a.sin_port);
  ::close(fd);  // nobody listens there now
  DeliveryResult r = smtp_send(cfg_for(port), kEnv, "x");
  EXPECT_EQ(r.outcome, DeliveryOutcome::kRetry);
  EXPECT_EQ(r.error, "smtp 127.0.0.1:" + std::to_string(port) + ": connect: Connection refused");
}

TEST(SmtpClient, GarbageIsNotAReply) {
  ScriptServer srv([&](Peer& p) {
    p.send("HTTP/1.1 400 Bad Request\r\n\r\n");
    p.line();
  });
  DeliveryResult r = smtp_send(cfg_for(srv.port()), kEnv, "x");
  EXPECT_EQ(r.outcome, DeliveryOutcome::kRetry);
  EXPECT_NE(r.error.find("greeting: unreadable reply: malformed reply line \"HTTP/1.1"), std::string::npos) << r.error;
}

TEST(SmtpClient, StartTlsResponseInjectionRefused) {
  ScriptServer srv([&](Peer& p) {
    p.send("220 hi\r\n");
    p.line();
    p.send("250-mx\r\n250 STARTTLS\r\n");
    p.line();
    p.send("220 go ahead\r\n250 injected before the handshake\r\n");
    p.line();
  });
  SmtpClientConfig c = cfg_for(srv.port());
  c.require_tls = true;
  DeliveryResult r = smtp_send(c, kEnv, "x");
  EXPECT_EQ(r.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(r.error.find("TLS handshake: the server sent data after its 220 reply to STARTTLS"), std::string::npos)
      << r.error;
}

TEST(SmtpClient, TlsHandshakeWithAPlainTextServerFails) {
  ScriptServer srv([&](Peer& p) {
    p.send("220 hi\r\n");
    p.line();
    p.send("250-mx\r\n250 STARTTLS\r\n");
    p.line();
    p.send("220 go ahead\r\n");
    p.read_until("\n", 1000);        // the ClientHello (binary)
    p.send("500 what is this\r\n");  // not TLS
  });
  SmtpClientConfig c = cfg_for(srv.port());
  c.require_tls = true;
  DeliveryResult r = smtp_send(c, kEnv, "x");
  EXPECT_NE(r.outcome, DeliveryOutcome::kDelivered);
  EXPECT_NE(r.error.find(": TLS handshake: "), std::string::npos) << r.error;
}

TEST(SmtpClient, EnvelopeChecked) {
  SmtpClientConfig c = cfg_for(1);
  EXPECT_EQ(smtp_send(c, SmtpEnvelope{"a@x", {}}, "x").outcome, DeliveryOutcome::kFailed);
  DeliveryResult r = smtp_send(c, SmtpEnvelope{"a@x", {"b@x>\r\nRCPT TO:<evil@x"}}, "x");
  EXPECT_EQ(r.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(r.error.find("invalid recipient"), std::string::npos);
  EXPECT_EQ(smtp_send(c, SmtpEnvelope{"a@x\r\nDATA", {"b@x"}}, "x").outcome, DeliveryOutcome::kFailed);
  c.hello = "me\r\nMAIL FROM:<evil@x>";
  DeliveryResult h = smtp_send(c, SmtpEnvelope{"a@x", {"b@x"}}, "x");
  EXPECT_EQ(h.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(h.error.find("invalid hello"), std::string::npos) << h.error;
}

TEST(SmtpClient, ParseHostPort) {
  auto a = parse_host_port("mail.example.org:587");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->host, "mail.example.org");
  EXPECT_EQ(a->port, 587);
  auto b = parse_host_port("[::1]:25");
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 25);
  for (const char* bad : {"mail.example.org", "::1:25", ":25", "host:0", "host:65536", "host:x", "[::1]", "a b:25", ""})
    EXPECT_FALSE(parse_host_port(bad)) << bad;
  SmtpClientConfig c;
  c.host = "::1";
  c.port = 465;
  EXPECT_EQ(c.server(), "[::1]:465");
}

}  // namespace
}  // namespace llmon::notify
