#include "procfs/diskstats.h"

#include <limits>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

constexpr size_t kMinCounters = 11;

}  // namespace

Status parse_diskstats(std::string_view text, std::vector<DiskStatsLine>& out) {
  out.clear();
  base::LineIterator lines(text);
  for (std::string_view line; lines.next(line);) {
    auto bad = [&](const std::string& what) {
      return Status::error(base::where("diskstats", lines.line_no(), what));
    };
    auto device_number = [&](std::string_view tok, const char* what, uint32_t& to) {
      auto v = base::parse_u64(tok);
      if (!v || *v > std::numeric_limits<uint32_t>::max())
        return bad(std::string(what) + " number is not a number: \"" + std::string(tok) + "\"");
      to = static_cast<uint32_t>(*v);
      return Status::ok();
    };
    FieldIter it(line);
    DiskStatsLine d;
    std::string_view tok;
    if (!it.next(tok)) continue;  // blank line
    if (Status s = device_number(tok, "major", d.major); !s) return s;
    if (!it.next(tok)) continue;
    if (Status s = device_number(tok, "minor", d.minor); !s) return s;
    if (!it.next(d.name)) continue;
    for (; d.count < kDiskStatFieldCount && it.next(tok); ++d.count) {
      auto v = base::parse_u64(tok);
      if (!v)
        return bad("device " + std::string(d.name) + ": counter " + std::to_string(d.count + 1) +
                   " is not a number: \"" + std::string(tok) + "\"");
      d.v[d.count] = *v;
    }
    if (d.count < kMinCounters) continue;  // too short to be a kernel diskstats line
    out.push_back(d);
  }
  return Status::ok();
}

Expected<std::vector<DiskStatsLine>> parse_diskstats(std::string_view text) {
  return filled<std::vector<DiskStatsLine>>([&](auto& out) { return parse_diskstats(text, out); });
}

}  // namespace llmon::procfs
