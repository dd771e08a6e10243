#include "health/aer.h"

#include <sys/stat.h>

#include "base/file_reader.h"
#include "base/strings.h"
#include "health/pci_address.h"

namespace llmon::health {

Expected<uint64_t> parse_aer_file(std::string_view text) {
  base::LineIterator lines(text);
  std::string_view line;
  uint64_t sum = 0;
  std::vector<std::string_view> f;
  while (lines.next(line)) {
    base::split_fields(line, f);
    if (f.empty()) continue;
    if (f.size() != 2) return Status::error("line " + std::to_string(lines.line_no()) + ": not \"NAME COUNT\"");
    auto n = base::parse_u64(f[1]);
    if (!n)
      return Status::error("line " + std::to_string(lines.line_no()) + ": bad count \"" + std::string(f[1]) + "\"");
    if (base::starts_with(f[0], "TOTAL_ERR_")) return *n;
    sum += *n;
  }
  return sum;
}

Expected<AerCounts> read_aer_counts(const std::string& sys_root, std::string_view bus_id) {
  auto bdf = normalize_bus_id(bus_id);
  if (!bdf) return Status::error("not a PCI address: \"" + std::string(bus_id) + "\"");
  const std::string dir = sys_root + "/bus/pci/devices/" + *bdf + "/";
  struct stat st {};
  if (::stat((dir + "aer_dev_correctable").c_str(), &st) != 0) return Status::no_data(dir + ": no AER counters");
  AerCounts c;
  struct File {
    const char* name;
    uint64_t* out;
  };
  for (File file : {File{"aer_dev_correctable", &c.correctable}, File{"aer_dev_nonfatal", &c.nonfatal},
                    File{"aer_dev_fatal", &c.fatal}}) {
    const std::string path = dir + file.name;
    auto text = base::read_file(path);
    if (!text) return text.status();
    auto n = parse_aer_file(*text);
    if (!n) return n.status().with_context(path);
    *file.out = *n;
  }
  return c;
}

}  // namespace llmon::health
