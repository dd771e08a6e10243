// Test-only harness for the notify tests that use the real Alertmanager as
// the oracle: a temp dir, a webhook sink (HTTP server thread on 127.0.0.1,
// kernel-picked port) that records every POST body with its arrival time,
// and an Alertmanager process started with a given config (cluster off),
// waited for with a deadline and stopped (only the process it started).
// Independent of src/notify so the code under test cannot share its bugs.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/http_client.h"
#include "support/subprocess.h"

namespace llmon::notify::amtest {

inline std::string find_program(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    std::string p = std::string(dir) + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "llmon-nroute-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
  }

 private:
  std::string path_;
};

struct Posted {
  std::string body;
  double at_s = 0;  // steady clock seconds
};

// Answers every request with 200 and records POST bodies.
class WebhookSink {
 public:
  WebhookSink() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd_, 64) == 0;
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~WebhookSink() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    thread_.join();
    ::close(fd_);
  }
  bool ok() const { return ok_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<Posted> posted() const {
    std::lock_guard lk(mu_);
    return posted_;
  }
  bool wait_for(size_t n, int timeout_ms) const {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, std::chrono::milliseconds(timeout_ms), [&] { return posted_.size() >= n; });
  }

 private:
  void loop() {
    for (;;) {
      {
        std::lock_guard lk(mu_);
        if (stop_) return;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      serve(c);
      ::close(c);
    }
  }
  void serve(int c) {
    std::string buf;
    const double deadline = now_s() + 5;
    size_t head_end = std::string::npos, need = 0;
    for (;;) {
      if (head_end == std::string::npos && (head_end = buf.find("\r\n\r\n")) != std::string::npos) {
        std::string head = buf.substr(0, head_end);
        for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        size_t cl = head.find("content-length:");
        need = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 15));
      }
      if (head_end != std::string::npos && buf.size() >= head_end + 4 + need) break;
      if (now_s() > deadline) return;
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char tmp[8192];
      ssize_t n = ::recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) return;
      buf.append(tmp, static_cast<size_t>(n));
    }
    {
      std::lock_guard lk(mu_);
      posted_.push_back({buf.substr(head_end + 4, need), now_s()});
    }
    cv_.notify_all();
    static const char kOk[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    (void)::send(c, kOk, sizeof kOk - 1, MSG_NOSIGNAL);
  }

  int fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
  std::thread thread_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stop_ = false;
  std::vector<Posted> posted_;
};

// One prometheus-alertmanager process with its own config and storage.
class Alertmanager {
 public:
  static std::string binary() { return find_program("prometheus-alertmanager"); }

  // Starts it and waits (up to 30 s) until /-/ready answers 200.
  bool start(const TempDir& dir, const std::string& config_yaml, std::string* error) {
    dir.write("alertmanager.yml", config_yaml);
    std::filesystem::create_directories(dir.file("am-data"));
    port_ = llmon::testing::free_tcp_port();
    log_ = dir.file("alertmanager.log");
    const std::string bin = binary();
    std::vector<std::string> args = {bin,
                                     "--config.file=" + dir.file("alertmanager.yml"),
                                     "--storage.path=" + dir.file("am-data"),
                                     "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                     "--cluster.listen-address=",
                                     "--log.level=debug"};
    pid_ = llmon::testing::spawn(args, log_);
    if (pid_ < 0) {
      *error = "could not start " + bin;
      return false;
    }
    const double deadline = now_s() + 30;
    while (now_s() < deadline) {
      auto r = llmon::testing::http_request(port_, "GET", "/-/ready", {}, 1000);
      if (r.status == 200) return true;
      // Doubles as the 50 ms pause between tries.
      if (llmon::testing::wait_exit(pid_, std::chrono::milliseconds(50)) >= 0) {
        pid_ = -1;
        *error = "alertmanager exited: " + log();
        return false;
      }
    }
    *error = "alertmanager not ready after 30 s: " + log();
    return false;
  }

  ~Alertmanager() { stop(); }

  void stop() {
    llmon::testing::stop_process(pid_, std::chrono::seconds(10));
    pid_ = -1;
  }

  // POST /api/v2/alerts with a JSON array; returns the HTTP status.
  int post_alerts(const std::string& json_array, std::string* body = nullptr) {
    std::string req =
        "POST /api/v2/alerts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Connection: close\r\nContent-Length: " +
        std::to_string(json_array.size()) + "\r\n\r\n" + json_array;
    auto r = llmon::testing::http_raw(port_, req);
    if (body) *body = r.body + r.error;
    return r.status;
  }

  std::string log() const {
    std::string s = llmon::testing::read_text(log_);
    return s.size() > 4000 ? s.substr(s.size() - 4000) : s;
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_;
};

}  // namespace llmon::notify::amtest
