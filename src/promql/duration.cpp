// Prometheus durations (prometheus/common model.ParseDuration and
// Duration.String): "1h30m", units y=365d w=7d d h m s ms, each at most once
// and in that order; "0" is the one unit-less duration. Values must fit
// Go's time.Duration (int64 nanoseconds), i.e. about 292 years.
#include <limits>

#include "go/strconv.h"
#include "promql/parser.h"

namespace llmon::promql {

namespace {

struct Unit {
  std::string_view name;
  int64_t ms;
};
constexpr Unit kUnits[] = {
    {"y", 365LL * 24 * 3600 * 1000},
    {"w", 7LL * 24 * 3600 * 1000},
    {"d", 24LL * 3600 * 1000},
    {"h", 3600LL * 1000},
    {"m", 60LL * 1000},
    {"s", 1000},
    {"ms", 1},
};
constexpr int64_t kMaxMs = std::numeric_limits<int64_t>::max() / 1'000'000;  // time.Duration range

}  // namespace

Expected<int64_t> parse_duration_ms(std::string_view text) {
  if (text == "0") return int64_t{0};
  if (text.empty()) return Status::error("empty duration string");
  const Status invalid = Status::error("not a valid duration string: " + go::quote(text));
  int64_t total = 0;
  bool overflow = false;
  size_t i = 0;
  size_t next_unit = 0;  // units must come in kUnits order, each once
  while (i < text.size()) {
    size_t digits_start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits_start) return invalid;
    std::string_view digits = text.substr(digits_start, i - digits_start);
    std::string_view unit;
    if (text.substr(i, 2) == "ms") {
      unit = "ms";
    } else if (i < text.size()) {
      unit = text.substr(i, 1);
    }
    size_t u = next_unit;
    while (u < std::size(kUnits) && kUnits[u].name != unit) ++u;
    if (u == std::size(kUnits)) return invalid;
    next_unit = u + 1;
    i += unit.size();
    // Go's Atoi saturates on overflow; anything above the limit is out of range.
    int64_t n = 0;
    for (char c : digits) {
      if (n > kMaxMs) break;
      n = n * 10 + (c - '0');
    }
    if (n > kMaxMs / kUnits[u].ms) {
      overflow = true;
      continue;
    }
    total += n * kUnits[u].ms;
    if (total > kMaxMs) overflow = true;
  }
  if (overflow) return Status::error("duration out of range");
  return total;
}

std::string format_duration_ms(int64_t ms) {
  if (ms == 0) return "0s";
  if (ms < 0) {
    // Built with += : GCC 12's -Wrestrict misfires on "-" + std::string&&.
    std::string neg = "-";
    neg += format_duration_ms(ms == std::numeric_limits<int64_t>::min() ? -(ms + 1) : -ms);
    return neg;
  }
  std::string out;
  for (const Unit& u : kUnits) {
    bool exact_only = u.name == "y" || u.name == "w";  // 90d reads better than 12w6d
    if (exact_only && ms % u.ms != 0) continue;
    int64_t v = ms / u.ms;
    if (v > 0) {
      out += std::to_string(v);
      out += u.name;
      ms -= v * u.ms;
    }
  }
  return out;
}

}  // namespace llmon::promql
