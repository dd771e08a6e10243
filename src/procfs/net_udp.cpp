#include "procfs/net_udp.h"

#include <cctype>
#include <optional>
#include <string>

#include "base/strings.h"
#include "go/strconv.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

bool even_hex(std::string_view s) {  // hex.DecodeString accepts it
  if (s.size() % 2 != 0) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "A:B" with exactly one colon.
bool split_colon(std::string_view s, std::string_view& a, std::string_view& b) {
  size_t c = s.find(':');
  if (c == std::string_view::npos || s.find(':', c + 1) != std::string_view::npos) return false;
  a = s.substr(0, c);
  b = s.substr(c + 1);
  return true;
}

// Checks one socket line and adds its queues; "" when it parses, else what is wrong.
std::string add_line(std::string_view line, SocketQueues& out) {
  FieldIter it(line);
  std::string_view f[8];
  size_t n = 0;
  while (n < 8 && it.next(f[n])) ++n;
  if (n < 8) return "fewer than 8 columns";
  std::string_view a, b;
  if (!split_colon(f[0], a, b) || !go::parse_uint(a)) return "bad sl \"" + std::string(f[0]) + "\"";
  for (int i : {1, 2})
    if (!split_colon(f[i], a, b) || !even_hex(a) || !parse_hex(b))
      return std::string(i == 1 ? "bad local_address \"" : "bad rem_address \"") + std::string(f[i]) + "\"";
  if (!parse_hex(f[3])) return "bad st \"" + std::string(f[3]) + "\"";
  std::optional<uint64_t> tx, rx;
  if (!split_colon(f[4], a, b) || !(tx = parse_hex(a)) || !(rx = parse_hex(b)))
    return "bad tx_queue:rx_queue \"" + std::string(f[4]) + "\"";
  if (!go::parse_uint(f[7])) return "bad uid \"" + std::string(f[7]) + "\"";
  out.tx_queue += *tx;
  out.rx_queue += *rx;
  ++out.sockets;
  return {};
}

}  // namespace

Expected<SocketQueues> parse_socket_queues(std::string_view text, std::string_view file) {
  SocketQueues out;
  base::LineIterator lines(text);
  std::string_view line;
  if (!lines.next(line)) return out;  // the header
  while (lines.next(line)) {
    std::string err = add_line(line, out);
    if (!err.empty()) return Status::error(base::where(file, lines.line_no(), err));
  }
  return out;
}

}  // namespace llmon::procfs
