#include "procfs/net_dev.h"

#include "base/strings.h"

namespace llmon::procfs {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

Status parse_net_dev(std::string_view text, std::vector<NetDevLine>& out) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (lines.line_no() <= 2) continue;  // "Inter-|   Receive ..." and " face |bytes ..."
    if (base::trim(line).empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos)
      return Status::error(base::where("net/dev", lines.line_no(), "missing ':' after the interface name"));
    NetDevLine d;
    d.name = base::trim(line.substr(0, colon));
    if (d.name.empty()) return Status::error(base::where("net/dev", lines.line_no(), "empty interface name"));
    std::string_view rest = line.substr(colon + 1);
    size_t i = 0;
    for (size_t f = 0; f < kNetDevFieldCount; ++f) {
      while (i < rest.size() && is_space(rest[i])) ++i;
      size_t start = i;
      while (i < rest.size() && !is_space(rest[i])) ++i;
      if (start == i)
        return Status::error(base::where("net/dev", lines.line_no(),
                                         "interface " + std::string(d.name) + ": expected 16 counters, got " +
                                             std::to_string(f)));
      auto v = base::parse_u64(rest.substr(start, i - start));
      if (!v)
        return Status::error(base::where("net/dev", lines.line_no(),
                                         "interface " + std::string(d.name) + ": counter " + std::to_string(f + 1) +
                                             " is not a number: \"" + std::string(rest.substr(start, i - start)) +
                                             "\""));
      d.v[f] = *v;
    }
    out.push_back(d);
  }
  return Status::ok();
}

Expected<std::vector<NetDevLine>> parse_net_dev(std::string_view text) {
  return filled<std::vector<NetDevLine>>([&](auto& out) { return parse_net_dev(text, out); });
}

}  // namespace llmon::procfs
