// Fuzz target: the /dev/kmsg record parser (logwatch/kmsg_record.h). Any
// bytes must give a record or an error, never a crash, a hang or a read out
// of bounds; a record's decoded text is never longer than its input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "logwatch/kmsg_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view raw(reinterpret_cast<const char*>(data), size);
  auto rec = llmon::logwatch::parse_kmsg_record(raw);
  if (rec) {
    if (rec->text.size() > size) std::abort();
    if (rec->priority < 0 || rec->priority > 7 || rec->facility > llmon::logwatch::kKmsgMaxPrio >> 3) std::abort();
  }
  return 0;
}
