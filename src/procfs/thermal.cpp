#include "procfs/thermal.h"

#include "base/strings.h"

namespace llmon::procfs {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

std::string_view sysfs_trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

Expected<int64_t> parse_sysfs_int(std::string_view text, std::string_view what) {
  std::string_view t = sysfs_trimmed(text);
  std::string_view s = t;
  const bool plus = !s.empty() && s.front() == '+';  // Go's ParseInt accepts a sign
  if (plus) s.remove_prefix(1);
  if (!s.empty() && !(plus && s.front() == '-')) {
    if (auto v = base::parse_i64(s)) return *v;
  }
  return Status::error(std::string(what) + ": not an integer: \"" + std::string(t) + "\"");
}

Expected<double> parse_thermal_temp_celsius(std::string_view text, std::string_view what) {
  auto t = parse_sysfs_int(text, what);
  if (!t) return t.status();
  return static_cast<double>(*t) / 1000.0;  // node_exporter: float64(temp) / 1000.0
}

}  // namespace llmon::procfs
