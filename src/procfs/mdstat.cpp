#include "procfs/mdstat.h"

#include <optional>

#include "base/strings.h"
#include "go/strconv.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::vector<std::string_view> fields(std::string_view line) {  // Go's strings.Fields of one line
  std::vector<std::string_view> out;
  FieldIter it(line);
  std::string_view f;
  while (it.next(f)) out.push_back(f);
  return out;
}

int64_t count(std::string_view s, std::string_view part) {
  int64_t n = 0;
  for (size_t p = s.find(part); p != std::string_view::npos; p = s.find(part, p + part.size())) ++n;
  return n;
}

// `\[(\d+)/(\d+)\] \[([U_]+)\]` at position q of s: the three groups.
bool bracket_at(std::string_view s, size_t q, std::string_view g[3]) {
  size_t i = q;
  if (i >= s.size() || s[i] != '[') return false;
  size_t a = ++i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == a || i >= s.size() || s[i] != '/') return false;
  g[0] = s.substr(a, i - a);
  size_t b = ++i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == b || s.substr(i, 3) != "] [") return false;
  g[1] = s.substr(b, i - b);
  i += 3;
  size_t c = i;
  while (i < s.size() && (s[i] == 'U' || s[i] == '_')) ++i;
  if (i == c || i >= s.size() || s[i] != ']') return false;
  g[2] = s.substr(c, i - c);
  return true;
}

// statusLineRE `(\d+) blocks .*\[(\d+)/(\d+)\] \[([U_]+)\]`: the groups after the
// size (the greedy .* takes the last bracket pair), or false.
bool match_status_line(std::string_view s, std::string_view g[3]) {
  for (size_t p = s.find(" blocks "); p != std::string_view::npos; p = s.find(" blocks ", p + 1)) {
    if (p == 0 || !is_digit(s[p - 1])) continue;
    for (size_t q = s.size(); q-- > p + 8;)
      if (bracket_at(s, q, g)) return true;
  }
  return false;
}

// The text of `(.+)` in `<prefix>(.+)<suffix>` (greedy: up to the last suffix),
// starting at the first prefix that has a suffix after it.
std::optional<std::string_view> between(std::string_view s, std::string_view prefix, std::string_view suffix) {
  for (size_t p = s.find(prefix); p != std::string_view::npos; p = s.find(prefix, p + 1)) {
    const size_t start = p + prefix.size();
    const size_t end = s.rfind(suffix);
    if (end != std::string_view::npos && end > start) return s.substr(start, end - start);
  }
  return std::nullopt;
}

Status line_error(std::string_view what, int line, const std::string& message) {
  return Status::error(base::where(what, line, message));
}

// evalRecoveryLine: blocks synced; the percentage, finish time and speed must parse.
Expected<int64_t> recovery_blocks(std::string_view line) {
  const std::string l(line);
  size_t open = line.find('(');
  std::optional<int64_t> synced;
  while (open != std::string_view::npos && !synced) {  // `\((\d+)/\d+\)`
    size_t i = open + 1, a = i;
    while (i < line.size() && is_digit(line[i])) ++i;
    size_t slash = i;
    if (i > a && i < line.size() && line[i] == '/') {
      size_t b = ++i;
      while (i < line.size() && is_digit(line[i])) ++i;
      if (i > b && i < line.size() && line[i] == ')') {
        synced = parse_decimal_int(line.substr(a, slash - a));
        if (!synced) return Status::error("error parsing int from recoveryLine \"" + l + "\"");
      }
    }
    open = line.find('(', open + 1);
  }
  if (!synced) return Status::error("unexpected recoveryLine: " + l);
  auto pct = between(line, "= ", "%");
  if (!pct) return Status::error("unexpected recoveryLine matching percentage: " + l);
  if (!go::parse_float(base::trim(*pct))) return Status::error("error parsing float from recoveryLine \"" + l + "\"");
  auto finish = between(line, "finish=", "min");
  if (!finish) return Status::error("unexpected recoveryLine matching est. finish time: " + l);
  if (!go::parse_float(*finish)) return Status::error("error parsing float from recoveryLine \"" + l + "\"");
  // `speed=(.+)[A-Z]`: up to the last capital letter after "speed=" and one character.
  std::optional<std::string_view> speed;
  if (size_t p = line.find("speed="); p != std::string_view::npos) {
    for (size_t q = line.size(); q-- > p + 7;)
      if (line[q] >= 'A' && line[q] <= 'Z') {
        speed = line.substr(p + 6, q - (p + 6));
        break;
      }
  }
  if (!speed) return Status::error("unexpected recoveryLine matching speed: " + l);
  if (!go::parse_float(*speed)) return Status::error("error parsing float from recoveryLine \"" + l + "\"");
  return *synced;
}

}  // namespace

Expected<std::vector<MdStat>> parse_mdstat(std::string_view text, std::string_view what) {
  std::vector<std::string_view> lines = base::split(text, '\n');
  std::vector<MdStat> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    const int line_no = static_cast<int>(i) + 1;
    if (base::trim(line).empty() || line[0] == ' ' || line.substr(0, 13) == "Personalities" ||
        line.substr(0, 6) == "unused")
      continue;
    auto dev = fields(line);
    if (dev.size() < 3)
      return line_error(what, line_no, "not enough fields in mdline (expected at least 3): " + std::string(line));
    MdStat md;
    md.name = std::string(dev[0]);
    md.state = std::string(dev[2]);
    if (lines.size() <= i + 3)
      return line_error(what, line_no, "error parsing \"" + md.name + "\": too few lines for md device");
    md.disks_failed = count(line, "(F)");
    md.disks_spare = count(line, "(S)");

    std::string_view status = lines[i + 1];
    auto sf = fields(status);
    auto size = sf.empty() ? std::nullopt : parse_decimal_int(sf[0]);
    if (!size) return line_error(what, line_no + 1, "unexpected statusLine \"" + std::string(status) + "\"");
    md.blocks_total = *size;
    if (contains(line, "raid0") || contains(line, "linear")) {
      md.disks_total = md.disks_active = count(line, "[");
    } else if (!contains(line, "inactive")) {
      std::string_view g[3];
      if (!match_status_line(status, g))
        return line_error(what, line_no + 1, "couldn't find all the substring matches: " + std::string(status));
      auto total = parse_decimal_int(g[0]), active = parse_decimal_int(g[1]);
      if (!total || !active)
        return line_error(what, line_no + 1, "unexpected statusLine \"" + std::string(status) + "\"");
      md.disks_total = *total;
      md.disks_active = *active;
      md.disks_down = count(g[2], "_");
    }

    size_t sync = i + 2;
    if (contains(lines[i + 2], "bitmap")) ++sync;
    std::string_view sl = lines[sync];
    md.blocks_synced = md.blocks_total;
    const bool recovering = contains(sl, "recovery"), resyncing = contains(sl, "resync"),
               checking = contains(sl, "check");
    if (recovering || resyncing || checking) {
      md.state = recovering ? "recovering" : checking ? "checking" : "resyncing";
      if (contains(sl, "PENDING") || contains(sl, "DELAYED")) {
        md.blocks_synced = 0;
      } else {
        auto synced = recovery_blocks(sl);
        if (!synced)
          return line_error(what, static_cast<int>(sync) + 1,
                            "error parsing sync line in md device \"" + md.name + "\": " + synced.error());
        md.blocks_synced = *synced;
      }
    }
    out.push_back(std::move(md));
  }
  return out;
}

}  // namespace llmon::procfs
