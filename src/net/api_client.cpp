// Blocking HTTP GET for `llmon query`; see api_client.h.
#include "net/api_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/strings.h"

namespace llmon::net {
namespace {

using SteadyClock = std::chrono::steady_clock;

int ms_left(SteadyClock::time_point deadline) {
  auto d = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return d > 0 ? static_cast<int>(d) : 0;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
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

// Connects to one resolved address within the deadline; -1 and `err` on failure.
int connect_one(const addrinfo* ai, SteadyClock::time_point deadline, std::string& err) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) {
    err = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
    err = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  if (::poll(&p, 1, ms_left(deadline)) <= 0) {
    err = "connection timed out";
    ::close(fd);
    return -1;
  }
  int so_error = 0;
  socklen_t len = sizeof so_error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
  if (so_error != 0) {
    err = std::strerror(so_error);
    ::close(fd);
    return -1;
  }
  return fd;
}

// Decodes a chunked body (RFC 9112 7.1); trailers are ignored.
Expected<std::string> dechunk(std::string_view in) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    size_t eol = in.find("\r\n", pos);
    if (eol == std::string_view::npos) return Status::error("truncated chunked body");
    std::string_view size_line = in.substr(pos, eol - pos);
    size_line = size_line.substr(0, size_line.find(';'));
    size_t n = 0;
    if (size_line.empty()) return Status::error("bad chunk size line");
    for (char c : size_line) {
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0 || n > (SIZE_MAX >> 4)) return Status::error("bad chunk size \"" + std::string(size_line) + "\"");
      n = n * 16 + static_cast<size_t>(d);
    }
    pos = eol + 2;
    if (n == 0) return out;
    if (in.size() < pos + n + 2) return Status::error("truncated chunked body");
    out.append(in.substr(pos, n));
    pos += n + 2;
  }
}

// True when `in` holds a whole response delimited by Content-Length.
bool complete_with_length(std::string_view in) {
  size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return false;
  std::string head = lower(in.substr(0, head_end));
  size_t cl = head.find("\r\ncontent-length:");
  if (cl == std::string::npos || head.find("\r\ntransfer-encoding:") != std::string::npos) return false;
  size_t eol = head.find("\r\n", cl + 2);
  auto n = base::parse_u64(
      base::trim(std::string_view(head).substr(cl + 17, eol == std::string::npos ? std::string::npos : eol - cl - 17)));
  return n && in.size() - head_end - 4 >= *n;
}

}  // namespace

std::string_view HttpResponse::header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return {};
}

Expected<HttpUrl> parse_http_url(std::string_view url) {
  std::string_view rest = url;
  auto bad = [&](const std::string& why) { return Status::error("invalid URL \"" + std::string(url) + "\": " + why); };
  if (size_t sep = rest.find("://"); sep != std::string_view::npos) {
    std::string scheme = lower(rest.substr(0, sep));
    if (scheme == "https") return bad("https is not supported; use http:// (or a local TLS-terminating proxy)");
    if (scheme != "http") return bad("the scheme must be http");
    rest.remove_prefix(sep + 3);
  }
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) return bad("user info is not supported");
  if (authority.empty()) return bad("no host");
  HttpUrl u;
  std::string_view port_text;
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '['");
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return bad("junk after ']'");
      port_text = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (u.host.empty()) return bad("no host");
  if (!port_text.empty()) {
    auto p = base::parse_i64(port_text);
    if (!p || *p <= 0 || *p > 65535) return bad("bad port \"" + std::string(port_text) + "\"");
    u.port = static_cast<int>(*p);
  }
  if (path.find_first_of("?#") != std::string_view::npos) return bad("a query or fragment is not allowed");
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  u.base_path = std::string(path);
  return u;
}

std::string url_for_listen_address(std::string_view listen_address) {
  std::string_view a = listen_address;
  std::string host, port;
  if (!a.empty() && a[0] == '[') {
    size_t close = a.find(']');
    host = std::string(a.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
    if (close != std::string_view::npos && close + 1 < a.size() && a[close + 1] == ':')
      port = std::string(a.substr(close + 2));
    if (host.empty() || host == "::") host = "::1";
    return "http://[" + host + "]" + (port.empty() ? "" : ":" + port);
  }
  size_t colon = a.rfind(':');
  host = std::string(a.substr(0, colon));
  if (colon != std::string_view::npos) port = std::string(a.substr(colon + 1));
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  return "http://" + host + (port.empty() ? "" : ":" + port);
}

Expected<HttpResponse> parse_http_response(std::string_view bytes) {
  size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    if (bytes.empty()) return Status::error("the server closed the connection without answering");
    return Status::error("truncated response header");
  }
  std::string_view head = bytes.substr(0, head_end);
  std::string_view body = bytes.substr(head_end + 4);
  HttpResponse r;
  size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  if (status_line.substr(0, 7) != "HTTP/1." || status_line.size() < 12 || status_line[8] != ' ')
    return Status::error("not an HTTP/1.x response: \"" + std::string(status_line.substr(0, 60)) + "\"");
  auto code = base::parse_i64(status_line.substr(9, 3));
  if (!code || *code < 100 || *code > 599)
    return Status::error("bad status line \"" + std::string(status_line.substr(0, 60)) + "\"");
  r.status = static_cast<int>(*code);
  size_t pos = eol == std::string_view::npos ? head.size() : eol + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    std::string_view line = head.substr(pos, e == std::string_view::npos ? std::string_view::npos : e - pos);
    pos = e == std::string_view::npos ? head.size() : e + 2;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Status::error("bad header line \"" + std::string(line) + "\"");
    r.headers.emplace_back(lower(base::trim(line.substr(0, colon))), std::string(base::trim(line.substr(colon + 1))));
  }
  if (lower(r.header("transfer-encoding")).find("chunked") != std::string::npos) {
    auto d = dechunk(body);
    if (!d) return d.status();
    r.body = std::move(*d);
  } else if (std::string_view cl = r.header("content-length"); !cl.empty()) {
    auto n = base::parse_u64(cl);
    if (!n) return Status::error("bad Content-Length \"" + std::string(cl) + "\"");
    if (body.size() < *n)
      return Status::error("truncated body: " + std::to_string(body.size()) + " of " + std::to_string(*n) + " bytes");
    r.body = std::string(body.substr(0, *n));
  } else {
    r.body = std::string(body);  // delimited by the close
  }
  return r;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

Expected<HttpResponse> http_get(const HttpUrl& url, std::string_view path_and_query, int timeout_ms) {
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  const std::string where =
      (url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(url.port);
  if (int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &res); rc != 0)
    return Status::error("cannot resolve " + url.host + ": " + ::gai_strerror(rc));
  std::string err = "no address";
  int fd_raw = -1;
  for (const addrinfo* ai = res; ai && fd_raw < 0; ai = ai->ai_next) fd_raw = connect_one(ai, deadline, err);
  ::freeaddrinfo(res);
  if (fd_raw < 0) return Status::error("cannot connect to " + where + ": " + err);
  Fd fd(fd_raw);

  std::string host_header = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  if (url.port != 80) host_header += ":" + std::to_string(url.port);
  std::string req = "GET " + url.base_path + std::string(path_and_query) + " HTTP/1.1\r\nHost: " + host_header +
                    "\r\nUser-Agent: llmon\r\nAccept: application/json\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < req.size()) {
    pollfd p{fd.get(), POLLOUT, 0};
    if (::poll(&p, 1, ms_left(deadline)) <= 0) return Status::error("timed out sending the request to " + where);
    ssize_t n = ::send(fd.get(), req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Status::error("sending the request to " + where + ": " + std::strerror(errno));
    }
    sent += static_cast<size_t>(n);
  }
  std::string in;
  char buf[65536];
  for (;;) {
    pollfd p{fd.get(), POLLIN, 0};
    int pr = ::poll(&p, 1, ms_left(deadline));
    if (pr == 0) return Status::error("timed out waiting for " + where + " to answer");
    if (pr < 0) {
      if (errno == EINTR) continue;
      return Status::error(std::string("poll: ") + std::strerror(errno));
    }
    ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      if (errno == ECONNRESET && !in.empty()) break;
      return Status::error("reading the answer of " + where + ": " + std::strerror(errno));
    }
    in.append(buf, static_cast<size_t>(n));
    if (complete_with_length(in)) break;  // a server that keeps the connection open anyway
  }
  auto r = parse_http_response(in);
  if (!r) return r.status().with_context("answer of " + where);
  return r;
}

}  // namespace llmon::net
