#include "procfs/net_softnet.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_softnet(std::string_view text, std::string_view file, std::vector<SoftnetLine>& out) {
  constexpr size_t kMinColumns = 9;
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    size_t n = it.remaining();
    if (n < kMinColumns)
      return Status::error(base::where(file, lines.line_no(),
                                       std::to_string(n) + " columns were detected, but at least " +
                                           std::to_string(kMinColumns) + " were expected"));
    // procfs 0.8 parses the three columns it exports; the others may hold anything.
    uint32_t v[3] = {};
    std::string_view f;
    for (size_t i = 0; i < 3 && it.next(f); ++i) {
      auto x = parse_hex(f, 32);
      if (!x)
        return Status::error(
            base::where(file, lines.line_no(),
                        "column " + std::to_string(i + 1) + " is not a hex number: \"" + std::string(f) + "\""));
      v[i] = static_cast<uint32_t>(*x);
    }
    out.push_back(SoftnetLine{v[0], v[1], v[2]});
  }
  return Status::ok();
}

Expected<std::vector<SoftnetLine>> parse_softnet(std::string_view text, std::string_view file) {
  return filled<std::vector<SoftnetLine>>([&](auto& out) { return parse_softnet(text, file, out); });
}

}  // namespace llmon::procfs
