#include "procfs/net_ip_vs.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

std::optional<uint64_t> parse_hex(std::string_view s, uint64_t max = UINT64_MAX) {
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

// Go's net.IP.String() of a 16-byte address: an IPv4-mapped one as a.b.c.d,
// otherwise lower-case groups with the longest run (>= 2) of zero groups as "::".
std::string format_ipv6(const std::array<uint8_t, 16>& b) {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(b.begin(), b.begin() + 12, kMapped))
    return std::to_string(b[12]) + "." + std::to_string(b[13]) + "." + std::to_string(b[14]) + "." +
           std::to_string(b[15]);
  int e0 = -1, e1 = -1;
  for (int i = 0; i < 16; i += 2) {
    int j = i;
    while (j < 16 && b[j] == 0 && b[j + 1] == 0) j += 2;
    if (j > i && j - i > e1 - e0) e0 = i, e1 = j, i = j;
  }
  if (e1 - e0 <= 2) e0 = e1 = -1;
  std::string out;
  char buf[8];
  for (int i = 0; i < 16; i += 2) {
    if (i == e0) {
      out += "::";
      i = e1;
      if (i >= 16) break;
    } else if (i > 0) {
      out += ':';
    }
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, (b[i] << 8) | b[i + 1], 16);
    out.append(buf, p);
  }
  return out;
}

// "C0A80016:0CEA" or "[2620:0000:...:0001]:0050" (procfs' parseIPPort).
Status parse_ip_port(std::string_view s, std::string& ip, uint16_t& port) {
  if (s.size() == 13) {
    auto v = parse_hex(s.substr(0, 8));
    if (!v) return Status::error("invalid IPv4 address \"" + std::string(s.substr(0, 8)) + "\"");
    ip = std::to_string(*v >> 24) + "." + std::to_string((*v >> 16) & 0xff) + "." + std::to_string((*v >> 8) & 0xff) +
         "." + std::to_string(*v & 0xff);
  } else if (s.size() == 46) {
    std::string text(s.substr(1, 39));
    std::array<uint8_t, 16> b{};
    if (::inet_pton(AF_INET6, text.c_str(), b.data()) != 1)
      return Status::error("invalid IPv6 address \"" + text + "\"");
    ip = format_ipv6(b);
  } else {
    return Status::error("unexpected IP:Port \"" + std::string(s) + "\"");
  }
  auto p = parse_hex(s.substr(s.size() - 4), 0xffff);
  if (!p) return Status::error("invalid port in \"" + std::string(s) + "\"");
  port = static_cast<uint16_t>(*p);
  return Status::ok();
}

}  // namespace

Expected<IpvsStats> parse_ipvs_stats(std::string_view text, std::string_view file) {
  base::LineIterator lines(text);
  std::string_view line;
  for (int i = 0; i < 3; ++i)
    if (!lines.next(line)) return Status::error(std::string(file) + ": too short (no totals line)");
  auto f = base::split_fields(line);
  if (f.size() != 5) return Status::error(base::where(file, 3, "expected 5 totals, got " + std::to_string(f.size())));
  IpvsStats out;
  uint64_t* dst[] = {&out.connections, &out.incoming_packets, &out.outgoing_packets, &out.incoming_bytes,
                     &out.outgoing_bytes};
  for (size_t i = 0; i < 5; ++i) {
    auto v = parse_hex(f[i]);
    if (!v)
      return Status::error(base::where(
          file, 3, "total " + std::to_string(i + 1) + " is not hexadecimal: \"" + std::string(f[i]) + "\""));
    *dst[i] = *v;
  }
  return out;
}

Expected<std::vector<IpvsBackend>> parse_ipvs_backends(std::string_view text, std::string_view file) {
  std::vector<IpvsBackend> out;
  IpvsBackend service;  // the local side of the current virtual service
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> f;
  while (lines.next(line)) {
    base::split_fields(line, f);
    if (f.size() < 2 || f[0] == "IP" || f[0] == "Prot" || f[1] == "RemoteAddress:Port") continue;
    auto fail = [&](const Status& s) { return Status::error(base::where(file, lines.line_no(), s.message())); };
    if (f[0] == "TCP" || f[0] == "UDP" || f[0] == "SCTP") {
      service = IpvsBackend{};
      service.proto = f[0];
      if (Status s = parse_ip_port(f[1], service.local_address, service.local_port); !s) return fail(s);
    } else if (f[0] == "FWM") {
      service = IpvsBackend{};
      service.proto = f[0];
      service.local_mark = f[1];
    } else if (f[0] == "->" && f.size() >= 6) {
      IpvsBackend b = service;
      if (Status s = parse_ip_port(f[1], b.remote_address, b.remote_port); !s) return fail(s);
      uint64_t* dst[] = {&b.weight, &b.active_conn, &b.inact_conn};
      for (size_t i = 0; i < 3; ++i) {
        auto v = base::parse_u64(f[3 + i]);
        if (!v)
          return fail(
              Status::error("field " + std::to_string(4 + i) + " is not a number: \"" + std::string(f[3 + i]) + "\""));
        *dst[i] = *v;
      }
      out.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace llmon::procfs
