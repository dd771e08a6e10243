#include "procfs/net_arp.h"

#include <string>

#include "base/strings.h"
#include "procfs/text_fields.h"

namespace llmon::procfs {

Status parse_arp(std::string_view text, std::string_view file, std::vector<ArpDeviceCount>& out) {
  out.clear();
  base::LineIterator lines(text);
  std::string_view line;
  while (lines.next(line)) {
    FieldIter it(line);
    std::string_view first, f, last;
    size_t n = 0;
    while (it.next(f)) {
      if (n++ == 0) first = f;
      last = f;
    }
    if (n < 6)
      return Status::error(base::where(
          file, lines.line_no(), "unexpected ARP table format: " + std::to_string(n) + " fields, expected at least 6"));
    if (first == "IP") continue;
    auto hit = out.begin();
    while (hit != out.end() && hit->device != last) ++hit;
    if (hit == out.end())
      out.push_back(ArpDeviceCount{last, 1});
    else
      ++hit->entries;
  }
  return Status::ok();
}

Expected<std::vector<ArpDeviceCount>> parse_arp(std::string_view text, std::string_view file) {
  return filled<std::vector<ArpDeviceCount>>([&](auto& out) { return parse_arp(text, file, out); });
}

}  // namespace llmon::procfs
