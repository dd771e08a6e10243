#include "procfs/net_tcp.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace llmon::procfs {
namespace {

bool hex_u32(std::string_view s, uint32_t& out) {
  if (s.empty() || s.size() > 8) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

// The next whitespace-separated field.
std::string_view field(std::string_view& s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  size_t j = i;
  while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
  std::string_view f = s.substr(i, j - i);
  s.remove_prefix(j);
  return f;
}

bool address(std::string_view hex, bool v6, std::string& out) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!v6) {
    uint32_t word = 0;
    if (hex.size() != 8 || !hex_u32(hex, word)) return false;
    // The kernel printed the network-order word as a host-order integer.
    struct in_addr a {};
    std::memcpy(&a, &word, 4);
    if (!::inet_ntop(AF_INET, &a, buf, sizeof buf)) return false;
  } else {
    if (hex.size() != 32) return false;
    struct in6_addr a {};
    for (int w = 0; w < 4; ++w) {
      uint32_t word = 0;
      if (!hex_u32(hex.substr(w * 8, 8), word)) return false;
      std::memcpy(reinterpret_cast<char*>(&a) + w * 4, &word, 4);
    }
    if (!::inet_ntop(AF_INET6, &a, buf, sizeof buf)) return false;
  }
  out = buf;
  return true;
}

}  // namespace

std::vector<TcpSocket> parse_net_tcp(std::string_view text, bool v6) {
  std::vector<TcpSocket> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::string_view rest = line;
    const std::string_view sl = field(rest);
    if (sl.empty() || sl.back() != ':') continue;
    const std::string_view local = field(rest);
    field(rest);  // rem_address
    const std::string_view st = field(rest);
    for (int i = 0; i < 5; ++i) field(rest);  // tx:rx, tr:when, retrnsmt, uid, timeout
    const std::string_view inode = field(rest);
    const size_t colon = local.find(':');
    if (colon == std::string_view::npos) continue;
    TcpSocket s;
    s.v6 = v6;
    uint32_t port = 0, state = 0;
    if (!address(local.substr(0, colon), v6, s.local_address) || !hex_u32(local.substr(colon + 1), port) ||
        port > 65535 || !hex_u32(st, state))
      continue;
    s.local_port = static_cast<uint16_t>(port);
    s.state = static_cast<int>(state);
    auto [p, ec] = std::from_chars(inode.data(), inode.data() + inode.size(), s.inode);
    if (ec != std::errc() || p != inode.data() + inode.size()) continue;
    out.push_back(std::move(s));
  }
  return out;
}

uint64_t socket_inode(std::string_view link) {
  constexpr std::string_view kPrefix = "socket:[";
  if (link.substr(0, kPrefix.size()) != kPrefix || link.empty() || link.back() != ']') return 0;
  const std::string_view num = link.substr(kPrefix.size(), link.size() - kPrefix.size() - 1);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  return ec == std::errc() && p == num.data() + num.size() ? v : 0;
}

bool parse_port_range(std::string_view text, uint16_t& lo, uint16_t& hi) {
  std::string_view rest = text;
  const std::string_view a = field(rest), b = field(rest);
  unsigned x = 0, y = 0;
  auto r1 = std::from_chars(a.data(), a.data() + a.size(), x);
  auto r2 = std::from_chars(b.data(), b.data() + b.size(), y);
  if (r1.ec != std::errc() || r2.ec != std::errc() || x > 65535 || y > 65535 || x > y) return false;
  lo = static_cast<uint16_t>(x);
  hi = static_cast<uint16_t>(y);
  return true;
}

}  // namespace llmon::procfs
