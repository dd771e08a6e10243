#include "procfs/net_snmp.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

// Fields of line split on single spaces (len(strings.Split(line, " "))).
size_t count_fields(std::string_view line) {
  size_t n = 1;
  for (char c : line) n += c == ' ';
  return n;
}

}  // namespace

Status parse_net_stats(std::string_view text, std::string_view file, int& next_section,
                       std::vector<NetStatField>& out) {
  base::LineIterator lines(text);
  std::string_view header, values;
  while (lines.next(header)) {
    int header_no = lines.line_no();
    if (!lines.next(values)) values = {};
    size_t sp = header.find(' ');
    std::string_view proto = header.substr(0, sp);
    if (proto.empty() || proto.back() != ':')
      return Status::error(base::where(file, header_no, "expected \"Protocol:\" at the start of the line"));
    proto.remove_suffix(1);
    if (count_fields(header) != count_fields(values))
      return Status::error(base::where(file, header_no + 1, "mismatch field count mismatch: " + std::string(proto)));
    int section = next_section++;
    // Walk both lines field by field after the protocol.
    std::string_view h = sp == std::string_view::npos ? std::string_view{} : header.substr(sp + 1);
    size_t vsp = values.find(' ');
    std::string_view v = vsp == std::string_view::npos ? std::string_view{} : values.substr(vsp + 1);
    if (sp == std::string_view::npos) continue;
    for (;;) {
      size_t hi = h.find(' '), vi = v.find(' ');
      out.push_back(NetStatField{proto, h.substr(0, hi), v.substr(0, vi), section});
      if (hi == std::string_view::npos) break;
      h.remove_prefix(hi + 1);
      v.remove_prefix(vi + 1);
    }
  }
  return Status::ok();
}

void parse_snmp6(std::string_view text, int& next_section, std::vector<NetStatField>& out) {
  const size_t first = out.size();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    std::string_view key, value;
    if (!it.next(key) || !it.next(value)) continue;
    size_t six = key.find('6');
    if (six == std::string_view::npos) continue;
    NetStatField f{key.substr(0, six + 1), key.substr(six + 1), value, 0};
    // One section per protocol: reuse the number of its first line (the
    // previous line's, nearly always).
    f.section = -1;
    if (out.size() > first && out.back().protocol == f.protocol) f.section = out.back().section;
    for (size_t i = first; f.section < 0 && i < out.size(); ++i)
      if (out[i].protocol == f.protocol) f.section = out[i].section;
    if (f.section < 0) f.section = next_section++;
    out.push_back(f);
  }
}

}  // namespace llmon::procfs
