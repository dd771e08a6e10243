#include "support/http_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace llmon::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

int ms_left(Clock::time_point deadline) {
  auto d = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return d > 0 ? static_cast<int>(d) : 0;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Parses the status line and headers in `head` (without the blank line).
void parse_head(const std::string& head, HttpResult& r) {
  size_t pos = 0;
  bool first = true;
  while (pos <= head.size()) {
    size_t eol = head.find("\r\n", pos);
    std::string line = head.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? head.size() + 1 : eol + 2;
    if (first) {
      r.status_line = line;
      first = false;
      if (line.rfind("HTTP/1.", 0) == 0 && line.size() >= 12) r.status = std::atoi(line.c_str() + 9);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    r.headers.emplace_back(lower(trim(line.substr(0, colon))), trim(line.substr(colon + 1)));
  }
}

// Decodes a chunked body; false when incomplete or malformed.
bool dechunk(const std::string& in, std::string& out) {
  out.clear();
  size_t pos = 0;
  for (;;) {
    size_t eol = in.find("\r\n", pos);
    if (eol == std::string::npos) return false;
    size_t n = std::strtoul(in.substr(pos, eol - pos).c_str(), nullptr, 16);
    pos = eol + 2;
    if (n == 0) return true;
    if (in.size() < pos + n + 2) return false;
    out.append(in, pos, n);
    pos += n + 2;
  }
}

}  // namespace

std::string HttpResult::header(const std::string& lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return "";
}

bool HttpResult::has_header(const std::string& lower_name) const {
  for (const auto& h : headers)
    if (h.first == lower_name) return true;
  return false;
}

HttpResult http_raw(int port, const std::string& raw, bool head_response, int timeout_ms) {
  HttpResult r;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) {
    r.error = std::string("socket: ") + std::strerror(errno);
    return r;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    r.error = std::string("connect: ") + std::strerror(errno);
    return r;
  }
  pollfd p{fd.get(), POLLOUT, 0};
  if (::poll(&p, 1, ms_left(deadline)) <= 0) {
    r.error = "connect: timed out";
    return r;
  }
  int soerr = 0;
  socklen_t len = sizeof soerr;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soerr, &len);
  if (soerr != 0) {
    r.error = std::string("connect: ") + std::strerror(soerr);
    return r;
  }

  // Write the request; stop early when the server answers or closes first
  // (it may refuse an oversized request before reading all of it).
  size_t sent = 0;
  while (sent < raw.size()) {
    pollfd q{fd.get(), POLLOUT | POLLIN, 0};
    int n = ::poll(&q, 1, ms_left(deadline));
    if (n <= 0) {
      r.error = "write: timed out";
      r.write_failed = true;
      return r;
    }
    if (q.revents & (POLLIN | POLLHUP | POLLERR)) {
      r.write_failed = true;
      break;
    }
    size_t chunk = std::min<size_t>(raw.size() - sent, 64 * 1024);
    ssize_t w = ::send(fd.get(), raw.data() + sent, chunk, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      r.write_failed = true;
      break;
    }
    sent += static_cast<size_t>(w);
  }

  // Read until the response is complete, the server closes, or the deadline.
  std::string buf;
  size_t head_end = std::string::npos;
  long long content_length = -1;
  bool chunked = false;
  char tmp[65536];
  for (;;) {
    if (head_end == std::string::npos) {
      head_end = buf.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        parse_head(buf.substr(0, head_end), r);
        std::string cl = r.header("content-length");
        if (!cl.empty()) content_length = std::atoll(cl.c_str());
        chunked = lower(r.header("transfer-encoding")).find("chunked") != std::string::npos;
        // A HEAD response has no body: read on to EOF (we sent Connection:
        // close) so that bytes a server wrongly sends show up in r.body.
        if (head_response) {
          content_length = -1;
          chunked = false;
        }
        if (r.status == 204 || r.status == 304) content_length = 0;
      }
    }
    if (head_end != std::string::npos) {
      size_t have = buf.size() - head_end - 4;
      if (content_length >= 0 && have >= static_cast<size_t>(content_length)) break;
      if (chunked) {
        std::string decoded;
        if (dechunk(buf.substr(head_end + 4), decoded)) break;
      }
    }
    pollfd q{fd.get(), POLLIN, 0};
    int n = ::poll(&q, 1, ms_left(deadline));
    if (n <= 0) {
      r.error = "read: timed out";
      break;
    }
    ssize_t got = ::recv(fd.get(), tmp, sizeof tmp, 0);
    if (got == 0) break;  // server closed
    if (got < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      r.error = std::string("read: ") + std::strerror(errno);
      break;
    }
    buf.append(tmp, static_cast<size_t>(got));
  }
  if (head_end == std::string::npos) {
    if (r.error.empty()) r.error = buf.empty() ? "no response" : "incomplete response head";
    r.status = 0;
    return r;
  }
  std::string body = buf.substr(head_end + 4);
  if (head_response) {
    r.body = std::move(body);
  } else if (chunked) {
    if (!dechunk(body, r.body) && r.error.empty()) r.error = "incomplete chunked body";
  } else {
    if (content_length >= 0 && body.size() > static_cast<size_t>(content_length))
      body.resize(static_cast<size_t>(content_length));
    if (content_length >= 0 && body.size() < static_cast<size_t>(content_length) && r.error.empty())
      r.error = "body shorter than Content-Length";
    r.body = std::move(body);
  }
  return r;
}

HttpResult http_request(int port, const std::string& method, const std::string& target,
                        const std::vector<std::string>& header_lines, int timeout_ms) {
  std::string raw = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                    "\r\nConnection: close\r\n";
  for (const auto& h : header_lines) raw += h + "\r\n";
  raw += "\r\n";
  return http_raw(port, raw, method == "HEAD", timeout_ms);
}

int free_tcp_port() {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return 0;
  socklen_t len = sizeof addr;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  return ntohs(addr.sin_port);
}

bool gunzip(const std::string& in, std::string& out) {
  out.clear();
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return false;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  char tmp[65536];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(tmp);
    zs.avail_out = sizeof tmp;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(tmp, sizeof tmp - zs.avail_out);
  }
  bool ok = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  return ok;
}

}  // namespace llmon::testing
