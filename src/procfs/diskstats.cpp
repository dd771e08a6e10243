#include "procfs/diskstats.h"

#include <limits>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Next whitespace-separated token of line starting at i; empty at the end.
std::string_view next_token(std::string_view line, size_t& i) {
  while (i < line.size() && is_space(line[i])) ++i;
  size_t start = i;
  while (i < line.size() && !is_space(line[i])) ++i;
  return line.substr(start, i - start);
}

constexpr size_t kMinCounters = 11;

}  // namespace

Status parse_diskstats(std::string_view text, std::vector<DiskStatsLine>& out) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    auto bad = [&](const std::string& what) {
      return Status::error(base::where("diskstats", lines.line_no(), what));
    };
    size_t i = 0;
    DiskStatsLine d;
    std::string_view tok = next_token(line, i);
    if (tok.empty()) continue;  // blank line
    uint32_t* ids[] = {&d.major, &d.minor};
    const char* id_names[] = {"major", "minor"};
    bool short_line = false;
    for (int k = 0; k < 2; ++k) {
      if (k == 1) tok = next_token(line, i);
      if (tok.empty()) {
        short_line = true;
        break;
      }
      auto v = base::parse_u64(tok);
      if (!v || *v > std::numeric_limits<uint32_t>::max())
        return bad(std::string(id_names[k]) + " number is not a number: \"" + std::string(tok) + "\"");
      *ids[k] = static_cast<uint32_t>(*v);
    }
    if (short_line) continue;
    d.name = next_token(line, i);
    if (d.name.empty()) continue;
    for (; d.count < kDiskStatFieldCount; ++d.count) {
      tok = next_token(line, i);
      if (tok.empty()) break;
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
  std::vector<DiskStatsLine> out;
  Status s = parse_diskstats(text, out);
  if (!s) return s;
  return out;
}

}  // namespace llmon::procfs
