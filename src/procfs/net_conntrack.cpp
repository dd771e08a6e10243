#include "procfs/net_conntrack.h"

#include <array>
#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Expected<uint64_t> parse_sysctl_uint(std::string_view text, std::string_view file) {
  std::string_view t = base::trim(text);
  bool digits = !t.empty();
  for (char c : t) digits = digits && c >= '0' && c <= '9';
  auto v = digits ? base::parse_u64(t) : std::nullopt;
  if (!v) return Status::error(std::string(file) + ": not an unsigned number: \"" + std::string(t) + "\"");
  return *v;
}

Expected<ConntrackStat> parse_conntrack_stat(std::string_view text, std::string_view file) {
  constexpr size_t kFields = 17;
  ConntrackStat out;
  base::LineIterator lines(text);
  std::string_view line;
  if (!lines.next(line)) return out;  // the header
  std::array<uint64_t, kFields> v{};
  while (lines.next(line)) {
    FieldIter it(line);
    std::string_view f;
    size_t n = 0;
    while (it.next(f)) {
      auto x = parse_hex(f);
      if (!x)
        return Status::error(base::where(file, lines.line_no(),
                                         "field " + std::to_string(n + 1) + " is not hex: \"" + std::string(f) + "\""));
      if (n < kFields) v[n] = *x;
      ++n;
    }
    if (n != kFields)
      return Status::error(base::where(
          file, lines.line_no(),
          "invalid conntrackstat entry: " + std::to_string(n) + " fields, expected " + std::to_string(kFields)));
    out.found += v[2];
    out.invalid += v[4];
    out.ignore += v[5];
    out.insert += v[8];
    out.insert_failed += v[9];
    out.drop += v[10];
    out.early_drop += v[11];
    out.search_restart += v[16];
  }
  return out;
}

}  // namespace llmon::procfs
