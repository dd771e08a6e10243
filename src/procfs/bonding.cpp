#include "procfs/bonding.h"

#include "procfs/text_fields.h"
#include "procfs/thermal.h"

namespace llmon::procfs {

std::vector<std::string> parse_bonding_names(std::string_view text) {
  std::vector<std::string> out;
  base::LineIterator lines(text);
  std::string_view line, f;
  while (lines.next(line))
    for (FieldIter it(line); it.next(f);) out.emplace_back(f);
  return out;
}

bool bonding_slave_up(std::string_view mii_status) {
  return sysfs_trimmed(mii_status) == "up";
}

}  // namespace llmon::procfs
