#include "procfs/schedstat.h"

#include <array>
#include <string>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Matches `cpu(\d+)( (\d+)){9}` at the start of s; the ten digit runs go to
// groups. Digit runs are maximal, so a match at a given start is unique.
bool match_cpu_line(std::string_view s, std::array<std::string_view, 10>& groups) {
  if (!base::starts_with(s, "cpu")) return false;
  size_t i = 3;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) {
      if (i >= s.size() || s[i] != ' ') return false;
      ++i;
    }
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
    groups[g] = s.substr(start, i - start);
  }
  return true;
}

}  // namespace

Status parse_schedstat(std::string_view text, std::vector<SchedstatCpu>& out, std::string_view file) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  std::array<std::string_view, 10> g;
  while (lines.next(line)) {
    bool matched = false;
    // The leftmost match, as Go's FindStringSubmatch.
    for (size_t pos = line.find("cpu"); pos != std::string_view::npos; pos = line.find("cpu", pos + 1)) {
      if ((matched = match_cpu_line(line.substr(pos), g))) break;
    }
    if (!matched) continue;
    auto running = base::parse_u64(g[7]), waiting = base::parse_u64(g[8]), slices = base::parse_u64(g[9]);
    if (!running || !waiting || !slices)
      return Status::error(
          base::where(file, lines.line_no(), "cpu" + std::string(g[0]) + ": a value overflows uint64"));
    out.push_back(SchedstatCpu{g[0], *running, *waiting, *slices});
  }
  return Status::ok();
}

Expected<std::vector<SchedstatCpu>> parse_schedstat(std::string_view text) {
  return filled<std::vector<SchedstatCpu>>([&](auto& out) { return parse_schedstat(text, out); });
}

}  // namespace llmon::procfs
