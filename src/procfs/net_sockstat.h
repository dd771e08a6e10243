// Parser for /proc/net/sockstat and /proc/net/sockstat6 ("TCP: inuse 7 orphan
// 0 tw 14 alloc 7 mem 24"): a protocol, then key/value pairs, as procfs
// 0.8's parseSockstat reads them for node_exporter 1.5. Pure; the protocol
// names are views into the parsed text.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::procfs {

struct SockstatProtocol {
  std::string_view name;  // "TCP", "UDP6", ...
  int64_t inuse = 0;      // 0 when the line has no inuse key, as in procfs
  std::optional<int64_t> orphan, tw, alloc, mem, memory;
};

struct Sockstat {
  std::optional<int64_t> used;  // the "sockets: used N" line (IPv4 only)
  std::vector<SockstatProtocol> protocols;
};

// Fills out (cleared first). A line with fewer than three space-separated
// fields, an odd number of key/value fields or a value that is not an integer
// (Go's ParseInt, base 0) is an error naming `file` and the line. Keys other
// than the six above are ignored; a repeated key keeps its last value.
Status parse_sockstat(std::string_view text, std::string_view file, Sockstat& out);
Expected<Sockstat> parse_sockstat(std::string_view text, std::string_view file = "/proc/net/sockstat");

}  // namespace llmon::procfs
