#include "procfs/pressure.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {
namespace {

// Reads "<key>=<value>" from the next field; false when it does not match.
template <typename T, typename Parse>
bool keyed(FieldIter& it, std::string_view key, Parse parse, T& dst) {
  std::string_view f;
  if (!it.next(f) || f.size() <= key.size() || f.substr(0, key.size()) != key) return false;
  auto v = parse(f.substr(key.size()));
  if (!v) return false;
  dst = *v;
  return true;
}

}  // namespace

Expected<PsiStats> parse_pressure(std::string_view text, std::string_view file) {
  PsiStats out;
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    // procfs takes the text before the first space as the prefix.
    std::string_view prefix = line.substr(0, line.find(' '));
    PsiLine* dst = nullptr;
    if (prefix == "some") {
      dst = &out.some;
      out.has_some = true;
    } else if (prefix == "full") {
      dst = &out.full;
      out.has_full = true;
    } else {
      continue;  // future line types are ignored
    }
    FieldIter it(line);
    std::string_view skip;
    it.next(skip);
    auto as_double = [](std::string_view s) { return base::parse_double(s); };
    auto as_u64 = [](std::string_view s) { return base::parse_u64(s); };
    if (!keyed(it, "avg10=", as_double, dst->avg10) || !keyed(it, "avg60=", as_double, dst->avg60) ||
        !keyed(it, "avg300=", as_double, dst->avg300) || !keyed(it, "total=", as_u64, dst->total_us)) {
      return Status::error(base::where(
          file, lines.line_no(), "expected \"" + std::string(prefix) + " avg10=<f> avg60=<f> avg300=<f> total=<n>\""));
    }
  }
  return out;
}

}  // namespace llmon::procfs
