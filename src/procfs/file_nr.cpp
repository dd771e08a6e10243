#include "procfs/file_nr.h"

#include <string>

#include "base/strings.h"
#include "go/strconv.h"

namespace llmon::procfs {

Expected<FileNr> parse_file_nr(std::string_view text, std::string_view file) {
  auto parts = base::split(base::trim(text), '\t');
  if (parts.size() < 3)
    return Status::error(base::where(file, 1, "expected 3 tab-separated fields, got " + std::to_string(parts.size())));
  FileNr out;
  const std::pair<size_t, double*> wanted[] = {{0, &out.allocated}, {2, &out.maximum}};
  for (auto [i, dst] : wanted) {
    auto v = go::parse_float(parts[i]);
    if (!v)
      return Status::error(base::where(
          file, 1, "field " + std::to_string(i + 1) + " is not a number: \"" + std::string(parts[i]) + "\""));
    *dst = *v;
  }
  return out;
}

}  // namespace llmon::procfs
