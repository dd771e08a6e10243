#include "procfs/net_sockstat.h"

#include <string>

#include "base/strings.h"
#include "go/strconv.h"

namespace llmon::procfs {

Status parse_sockstat(std::string_view text, std::string_view file, Sockstat& out) {
  out.used.reset();
  out.protocols.clear();
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> fields;
  while (lines.next(line)) {
    fields = base::split(line, ' ');  // single spaces, as strings.Split(line, " ")
    if (fields.size() < 3)
      return Status::error(base::where(file, lines.line_no(), "malformed sockstat line \"" + std::string(line) + "\""));
    if ((fields.size() - 1) % 2 != 0)
      return Status::error(base::where(file, lines.line_no(), "odd number of fields in key/value pairs"));
    std::string_view proto = fields[0];
    if (!proto.empty() && proto.back() == ':') proto.remove_suffix(1);
    SockstatProtocol p;
    p.name = proto;
    std::optional<int64_t> used;
    for (size_t i = 1; i + 1 < fields.size(); i += 2) {
      std::string_view key = fields[i];
      auto v = go::parse_int(fields[i + 1]);
      if (!v)
        return Status::error(base::where(
            file, lines.line_no(),
            "invalid value \"" + std::string(fields[i + 1]) + "\" for " + std::string(proto) + " " + std::string(key)));
      if (key == "used") used = *v;
      if (key == "inuse") p.inuse = *v;
      if (key == "orphan") p.orphan = *v;
      if (key == "tw") p.tw = *v;
      if (key == "alloc") p.alloc = *v;
      if (key == "mem") p.mem = *v;
      if (key == "memory") p.memory = *v;
    }
    if (proto == "sockets")
      out.used = used.value_or(0);
    else
      out.protocols.push_back(p);
  }
  return Status::ok();
}

Expected<Sockstat> parse_sockstat(std::string_view text, std::string_view file) {
  return filled<Sockstat>([&](auto& out) { return parse_sockstat(text, file, out); });
}

}  // namespace llmon::procfs
