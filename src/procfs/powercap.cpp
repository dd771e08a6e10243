#include "procfs/powercap.h"

#include <charconv>
#include <optional>

#include "procfs/text_fields.h"
#include "procfs/thermal.h"

namespace llmon::procfs {
namespace {

bool word_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

RaplZoneName RaplZoneNamer::next(std::string_view content) {
  std::string_view name = sysfs_trimmed(content);
  RaplZoneName out;
  const size_t dash = name.find('-');
  std::optional<int64_t> suffix;
  if (dash != std::string_view::npos && name.find('-', dash + 1) == std::string_view::npos)
    suffix = parse_decimal_int(name.substr(dash + 1));
  if (suffix) {
    out.name = std::string(name.substr(0, dash));
    out.index = *suffix;
  } else {
    out.name = std::string(name);
    auto it = uses_.find(out.name);
    out.index = it == uses_.end() ? 0 : it->second;
  }
  uses_[out.name] = static_cast<int64_t>(static_cast<uint64_t>(out.index) + 1);  // wraps as Go's int
  return out;
}

Expected<uint64_t> parse_powercap_uint(std::string_view text, std::string_view what) {
  std::string_view t = sysfs_trimmed(text);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    return Status::error(std::string(what) + ": not an unsigned integer: \"" + std::string(t) + "\"");
  return v;
}

std::string sanitize_metric_name(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (!word_char(s[i]) || s[i] == '_') {
      // Find the extent of "_*[^0-9A-Za-z_]+_*" starting here, if any.
      size_t j = i;
      while (j < s.size() && s[j] == '_') ++j;
      size_t k = j;
      while (k < s.size() && !word_char(s[k])) ++k;
      if (k > j) {
        while (k < s.size() && s[k] == '_') ++k;
        out += '_';
        i = k;
        continue;
      }
      out.append(s.substr(i, j - i));  // underscores not before a bad run
      i = j;
      continue;
    }
    out += s[i++];
  }
  return out;
}

}  // namespace llmon::procfs
